/**
 * Bytes the V8 heap allocated, and the time its collections took, counted from V8's own GC profiler: the heap in use
 * now plus what every collection freed (each one's used size before minus after). Buffers' backing stores live
 * outside the V8 heap and are not in it. One meter per process: it keeps a profiler running from its creation.
 */
import v8 from 'node:v8';

export interface HeapReading {
  /** Bytes allocated since the meter started. */
  allocated: number;
  /** µs of collections since the meter started, and how many. */
  gcUs: number;
  gcCount: number;
}

export function heapMeter(): () => HeapReading {
  let profiler = new v8.GCProfiler();
  profiler.start();
  let freed = 0;
  let gcUs = 0;
  let gcCount = 0;
  return () => {
    const r = profiler.stop();
    profiler = new v8.GCProfiler();
    profiler.start();
    for (const s of r?.statistics ?? []) {
      freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
      gcUs += s.cost;
      gcCount += 1;
    }
    return { allocated: v8.getHeapStatistics().used_heap_size + freed, gcUs, gcCount };
  };
}

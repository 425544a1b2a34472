/**
 * The few editor and DOM shapes the suite reads inside the page. The project compiles without the DOM library, so a
 * function handed to `page.evaluate` reaches the page's globals through `globalThis as unknown as EditorWindow`;
 * only types come from here (the function runs in the browser, where nothing is imported).
 */

export interface PageElement {
  id: string;
  tagName: string;
  className: string;
  textContent: string | null;
  innerText: string;
  innerHTML: string;
  outerHTML: string;
  value?: string;
  type?: string;
  checked?: boolean;
  parentElement: PageElement | null;
  children: ArrayLike<PageElement>;
  nextElementSibling: PageElement | null;
  classList: { contains(name: string): boolean };
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  closest(selector: string): PageElement | null;
  getClientRects(): ArrayLike<unknown>;
  getBoundingClientRect(): { x: number; y: number; width: number; height: number };
}

export interface PropertyDefinition {
  value?: unknown;
  required?: boolean;
  type?: string;
  validate?: unknown;
}

export interface NodeDefinition {
  category: string;
  defaults: Record<string, PropertyDefinition>;
  credentials?: Record<string, { type?: string }>;
  inputs?: number;
  outputs?: number;
  icon?: string;
  paletteLabel?: string | (() => string);
  set: { module: string; id: string };
}

export interface EditorNode {
  id: string;
  type: string;
  z?: string;
  name?: string;
  valid?: boolean;
  validationErrors?: string[];
  changed?: boolean;
  x?: number;
  y?: number;
  w?: number;
  h?: number;
  status?: { text?: string; fill?: string; shape?: string };
  credentials?: Record<string, unknown>;
  [property: string]: unknown;
}

export interface RedEditor {
  _(key: string, options?: Record<string, unknown>): string;
  nodes: {
    node(id: string): EditorNode | null;
    getType(type: string): NodeDefinition | undefined;
    eachNode(cb: (n: EditorNode) => void): void;
    eachConfig(cb: (n: EditorNode) => void): void;
    dirty(): boolean;
    getNodeHelp(type: string): string | undefined;
    workspace(id: string): { id: string; label?: string } | null;
  };
  workspaces: { active(): string; show(id: string): void };
  view: { scale(): number };
  actions: { invoke(name: string): void };
}

export interface EditorWindow {
  RED: RedEditor;
  document: {
    documentElement: PageElement;
    body: PageElement;
    getElementById(id: string): PageElement | null;
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): ArrayLike<PageElement>;
  };
  localStorage: { length: number; key(i: number): string | null; getItem(key: string): string | null };
  getComputedStyle(el: PageElement): { right: string; zIndex: string; display: string; visibility: string };
  CSS: { escape(value: string): string };
}

export { freePort } from '../../../demo/free-port';

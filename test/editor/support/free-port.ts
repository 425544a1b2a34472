export { freePort } from '../../../cli/free-port';

export { ERROR_CODES, type ErrorCode } from './catalogue.js';
export { CordonError, CordonPluginError, wrapPluginError, type JsonDetails } from './cordon-error.js';

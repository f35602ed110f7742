export { BoxOpener, BoxSealer } from './box';
export { createLogCipher } from './log-cipher';
export { createRecordCipher } from './record-cipher';

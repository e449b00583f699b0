import { openStore } from '../../src/store/index.js';
import { describeStoreContract } from './contract/index.js';

describeStoreContract('memory', {
  durable: false,
  open: () => openStore('memory:'),
});

import { runAdapterConformance } from '../adapter-conformance.js';
import { feishuHarness } from './feishu-kit.js';

runAdapterConformance('feishu (webhook, encrypted and signed, fake Lark)', () => feishuHarness('webhook'));
runAdapterConformance('feishu (long connection, fake Lark)', () => feishuHarness('websocket'));

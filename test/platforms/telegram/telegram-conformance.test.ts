import { runAdapterConformance } from '../adapter-conformance.js';
import { telegramHarness } from './telegram-kit.js';

runAdapterConformance('telegram (long polling, fake Bot API)', () => telegramHarness('polling'));
runAdapterConformance('telegram (webhook, fake Bot API)', () => telegramHarness('webhook'));

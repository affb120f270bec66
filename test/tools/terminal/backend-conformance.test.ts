import { backendConformance } from './backend-conformance.js';
import { sandboxUnavailableReason } from './sandbox-kit.js';

backendConformance('local');
backendConformance('sandbox', sandboxUnavailableReason());

import { runAdapterConformance } from '../adapter-conformance.js';
import { discordHarness } from './discord-kit.js';

runAdapterConformance('discord (discord.js, fake REST + gateway)', () => discordHarness());

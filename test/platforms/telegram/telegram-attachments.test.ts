import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../../src/platforms/adapter.js';
import { ANN, recordingSink, setupTelegram, type TelegramSetup } from './telegram-kit.js';

describe('telegram photos and documents', () => {
  let setup: TelegramSetup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  async function started(yaml?: string, env?: Record<string, string>) {
    setup = await setupTelegram('polling', {
      ...(yaml !== undefined ? { yaml } : {}),
      ...(env !== undefined ? { env } : {}),
    });
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    const received = async (updateId: number): Promise<InboundMessage> => {
      expect(await setup?.fake.outcome(updateId)).toBe('acknowledged');
      const event = recorder.events.find((e) => e.eventId === String(updateId));
      if (event?.kind !== 'message') throw new Error('no message event');
      return event;
    };
    return { ...setup, received };
  }

  it('saves a photo for vision_analyze and, without a vision model, also hands it to the chat model', async () => {
    const { fake, received } = await started();
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const { fileId } = fake.addFile(bytes, 'photos/file_1.jpg');
    const event = await received(
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'what is this?', photoFileId: fileId }),
    );
    expect(event.text.startsWith('what is this?\n\n[photo saved at ')).toBe(true);
    expect(event.text).toContain('vision_analyze');
    const path = /\[photo saved at (\S+) /.exec(event.text)?.[1] ?? '';
    expect(readFileSync(path)).toEqual(bytes);
    expect(event.images).toEqual([{ url: `data:image/jpeg;base64,${bytes.toString('base64')}` }]);
  });

  it('leaves the photo to vision_analyze when a vision model is configured', async () => {
    const { fake, received } = await started(undefined, { HERMES_VISION_MODEL: 'vision-model' });
    const { fileId } = fake.addFile(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 9]), 'photos/file_9.jpg');
    const event = await received(
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'and this?', photoFileId: fileId }),
    );
    expect(event.text).toContain('[photo saved at ');
    expect(event.images).toBeUndefined();
  });

  it('saves a document in the inbox and tells the agent where', async () => {
    const { fake, received, home } = await started();
    const { fileId } = fake.addFile(Buffer.from('a,b\n1,2\n'), 'documents/file_2.csv');
    const event = await received(
      fake.sendText({ chatId: ANN.id, from: ANN, document: { fileId, fileName: '../report 2024.csv' } }),
    );
    const path = /\[file saved at (.+)\]$/.exec(event.text)?.[1] ?? '';
    expect(path.startsWith(`${home}/inbox/telegram/${ANN.id}/`)).toBe(true);
    expect(path).not.toContain('..');
    expect(readFileSync(path, 'utf8')).toBe('a,b\n1,2\n');
  });

  it('does not download files over download_max_bytes, and says so in the text', async () => {
    const { fake, received } = await started('    download_max_bytes: 1000');
    const declared = fake.addFile(Buffer.alloc(2000), 'documents/big.bin');
    const big = await received(
      fake.sendText({
        chatId: ANN.id,
        from: ANN,
        text: 'see attached',
        document: { fileId: declared.fileId, fileName: 'big.bin', size: 2000 },
      }),
    );
    expect(big.text).toMatch(
      /^see attached\n\n\[file "big.bin" not downloaded: .* over the 1000 bytes limit\]$/,
    );
    expect(fake.callsOf('getFile')).toHaveLength(0);
    // Size not announced: the download itself stops at the cap.
    const silent = fake.addFile(Buffer.alloc(5000), 'photos/big.jpg');
    const photo = await received(fake.sendText({ chatId: ANN.id, from: ANN, photoFileId: silent.fileId }));
    expect(photo.images).toBeUndefined();
    expect(photo.text).toMatch(/photo not downloaded/);
  });
});

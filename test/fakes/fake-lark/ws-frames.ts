import protobuf from 'protobufjs';

/**
 * Lark's long-connection frame (`pbbp2.Frame`), declared by reflection with the field numbers and
 * proto2 rules of the SDK's generated code (`@larksuiteoapi/node-sdk` lib/index.js, pbbp2).
 */
const root = protobuf.Root.fromJSON({
  nested: {
    pbbp2: {
      nested: {
        Header: {
          fields: {
            key: { rule: 'required', type: 'string', id: 1 },
            value: { rule: 'required', type: 'string', id: 2 },
          },
        },
        Frame: {
          fields: {
            SeqID: { rule: 'required', type: 'uint64', id: 1 },
            LogID: { rule: 'required', type: 'uint64', id: 2 },
            service: { rule: 'required', type: 'int32', id: 3 },
            method: { rule: 'required', type: 'int32', id: 4 },
            headers: { rule: 'repeated', type: 'Header', id: 5 },
            payloadEncoding: { type: 'string', id: 6 },
            payloadType: { type: 'string', id: 7 },
            payload: { type: 'bytes', id: 8 },
            LogIDNew: { type: 'string', id: 9 },
          },
        },
      },
    },
  },
});
const FrameType = root.lookupType('pbbp2.Frame');

/** Frame methods: control frames carry ping/pong, data frames carry events and their acks. */
export const FRAME_CONTROL = 0;
export const FRAME_DATA = 1;

export interface WsFrame {
  readonly seqId: number;
  readonly logId: number;
  readonly service: number;
  readonly method: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: Buffer;
}

export function encodeFrame(frame: WsFrame): Buffer {
  const message = FrameType.fromObject({
    SeqID: frame.seqId,
    LogID: frame.logId,
    service: frame.service,
    method: frame.method,
    headers: Object.entries(frame.headers).map(([key, value]) => ({ key, value })),
    payload: frame.payload,
  });
  return Buffer.from(FrameType.encode(message).finish());
}

/** Decodes a frame; throws (protobufjs' ProtocolError) on a frame missing a required field. */
export function decodeFrame(bytes: Uint8Array): WsFrame {
  const object = FrameType.toObject(FrameType.decode(bytes), {
    longs: Number,
    bytes: Buffer,
    defaults: true,
  });
  const headers: Record<string, string> = {};
  const list: unknown = object['headers'];
  if (Array.isArray(list)) {
    for (const header of list as { key?: unknown; value?: unknown }[]) {
      if (typeof header.key === 'string' && typeof header.value === 'string')
        headers[header.key] = header.value;
    }
  }
  const payload: unknown = object['payload'];
  return {
    seqId: Number(object['SeqID']),
    logId: Number(object['LogID']),
    service: Number(object['service']),
    method: Number(object['method']),
    headers,
    payload: Buffer.isBuffer(payload) ? payload : Buffer.alloc(0),
  };
}

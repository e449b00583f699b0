/**
 * Binary DXF (AutoCAD's "DXB"-free binary form of DXF): the same tags as ASCII DXF, each a group code and
 * a value typed by the code. Read by turning it into ASCII DXF text, which the one reader then parses;
 * written by turning the writer's ASCII text into it. Hand-written: no npm package reads or writes binary
 * DXF, and the format is a few lines of tables (the value types of ezdxf's `lldxf/types.py`, which match
 * the DXF reference's "Group Code Value Types").
 *
 * Layout: the 22-byte sentinel, then per tag the group code (2 bytes little-endian from R13 on; R12 uses
 * 1 byte, 255 announcing a 2-byte code) and its value: a zero-terminated string, a little-endian double,
 * int16, int32 or int64, one byte for a bool (290-299), or a length byte and that many bytes for binary
 * chunks (310-319, 1004).
 */
const BINARY_DXF_SENTINEL = Buffer.from('AutoCAD Binary DXF\r\n\x1a\x00', 'latin1');

type ValueType = 'double' | 'int16' | 'int32' | 'int64' | 'bool' | 'bytes' | 'string';

const ranges: Array<[number, number, ValueType]> = [
  [10, 59, 'double'],
  [60, 79, 'int16'],
  [90, 99, 'int32'],
  [110, 149, 'double'],
  [160, 169, 'int64'],
  [170, 179, 'int16'],
  [210, 239, 'double'],
  [270, 289, 'int16'],
  [290, 299, 'bool'],
  [310, 319, 'bytes'],
  [370, 389, 'int16'],
  [400, 409, 'int16'],
  [420, 459, 'int32'],
  [460, 469, 'double'],
  [1004, 1004, 'bytes'],
  [1010, 1059, 'double'],
  [1060, 1070, 'int16'],
  [1071, 1071, 'int32'],
];

/** Values of a fixed size: their byte count and their text. */
const FIXED: Partial<Record<ValueType, { size: number; read: (b: Buffer, at: number) => string }>> = {
  double: { size: 8, read: (b, at) => String(b.readDoubleLE(at)) },
  int16: { size: 2, read: (b, at) => String(b.readInt16LE(at)) },
  int32: { size: 4, read: (b, at) => String(b.readInt32LE(at)) },
  int64: { size: 8, read: (b, at) => String(b.readBigInt64LE(at)) },
  bool: { size: 1, read: (b, at) => String(b[at]) },
};

function typeOf(code: number): ValueType {
  for (const [from, to, type] of ranges) if (code >= from && code <= to) return type;
  return 'string';
}

export function isBinaryDxf(bytes: Uint8Array): boolean {
  return (
    bytes.byteLength >= BINARY_DXF_SENTINEL.byteLength &&
    Buffer.from(bytes.buffer, bytes.byteOffset, BINARY_DXF_SENTINEL.byteLength).equals(BINARY_DXF_SENTINEL)
  );
}

/**
 * The ASCII DXF text of a binary DXF file; a last tag cut short is left out (the text then ends without
 * EOF, which the reader refuses or, in recover mode, notes). Strings are UTF-8 from AC1021 (R2007) on, else one byte per
 * character (latin1, as the ASCII reader takes them); doubles in JavaScript's shortest exact form.
 */
export function binaryDxfToText(data: Uint8Array): string {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // R12 writes 1-byte group codes: the first tag's value ("SECTION") then starts one byte earlier.
  const start = BINARY_DXF_SENTINEL.byteLength;
  const r12 = bytes[start + 1] !== 0;
  let encoding: BufferEncoding = 'latin1';
  const out: string[] = [];
  let i = start;
  let lastCode = -1;
  let lastValue = '';
  while (i < bytes.length) {
    let code: number;
    if (r12) {
      code = bytes[i] as number;
      i += 1;
      if (code === 255) {
        if (i + 2 > bytes.length) break;
        code = bytes.readUInt16LE(i);
        i += 2;
      }
    } else {
      if (i + 2 > bytes.length) break;
      code = bytes.readUInt16LE(i);
      i += 2;
    }
    let value: string;
    const type = typeOf(code);
    const fixed = FIXED[type];
    if (fixed) {
      if (i + fixed.size > bytes.length) break;
      value = fixed.read(bytes, i);
      i += fixed.size;
    } else if (type === 'bytes') {
      const length = bytes[i];
      if (length === undefined || i + 1 + length > bytes.length) break;
      value = bytes
        .subarray(i + 1, i + 1 + length)
        .toString('hex')
        .toUpperCase();
      i += 1 + length;
    } else {
      const end = bytes.indexOf(0, i);
      if (end < 0) break;
      value = bytes.subarray(i, end).toString(encoding);
      i = end + 1;
    }
    if (lastCode === 9 && lastValue === '$ACADVER' && code === 1 && value >= 'AC1021') encoding = 'utf8';
    out.push(String(code), value);
    lastCode = code;
    lastValue = value;
    if (code === 0 && value === 'EOF') break;
  }
  return `${out.join('\n')}\n`;
}

/**
 * The binary DXF of ASCII DXF text as chronicle's writer makes it (R2000 or later: 2-byte group codes,
 * a tag per two lines). A value that does not parse as its code's type is refused: the writer never
 * makes one, so it would be a fault of the writer.
 */
export function textToBinaryDxf(text: string, version: string): Buffer {
  const lines = text.split(/\r?\n/);
  const encoding: BufferEncoding = version >= 'AC1021' ? 'utf8' : 'latin1';
  const parts: Buffer[] = [BINARY_DXF_SENTINEL];
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const code = Number((lines[i] as string).trim());
    const value = lines[i + 1] as string;
    const head = Buffer.alloc(2);
    head.writeUInt16LE(code);
    parts.push(head);
    const type = typeOf(code);
    switch (type) {
      case 'double': {
        const b = Buffer.alloc(8);
        b.writeDoubleLE(Number(value));
        parts.push(b);
        break;
      }
      case 'int16': {
        const b = Buffer.alloc(2);
        b.writeInt16LE(Math.trunc(Number(value)));
        parts.push(b);
        break;
      }
      case 'int32': {
        const b = Buffer.alloc(4);
        b.writeInt32LE(Math.trunc(Number(value)) | 0);
        parts.push(b);
        break;
      }
      case 'int64': {
        const b = Buffer.alloc(8);
        b.writeBigInt64LE(BigInt(value.trim() || '0'));
        parts.push(b);
        break;
      }
      case 'bool':
        parts.push(Buffer.from([Math.trunc(Number(value)) ? 1 : 0]));
        break;
      case 'bytes': {
        const b = Buffer.from(value.trim(), 'hex');
        // A length byte: chunks over 255 bytes are split, as a reader joins consecutive chunks.
        for (let at = 0; at < b.length || at === 0; at += 255) {
          const chunk = b.subarray(at, at + 255);
          if (at > 0) parts.push(head);
          parts.push(Buffer.from([chunk.length]), chunk);
          if (b.length === 0) break;
        }
        break;
      }
      default:
        parts.push(
          Buffer.from(encoding === 'latin1' ? unescapeLatin1(value) : value, encoding),
          Buffer.from([0]),
        );
    }
    if (code === 0 && value.trim() === 'EOF') break;
  }
  return Buffer.concat(parts);
}

/**
 * The writer spells characters outside ASCII as `\U+XXXX` in a drawing before R2007; in binary DXF the
 * string is bytes of the drawing's code page (ANSI_1252), which ezdxf's binary reader decodes but whose
 * escapes it leaves as they are. Those that are the same in latin1 and code page 1252 go in as bytes.
 */
function unescapeLatin1(value: string): string {
  if (!value.includes('\\U+')) return value;
  return value.replace(/\\U\+([0-9A-Fa-f]{4})/g, (spelled, hex: string) => {
    const c = Number.parseInt(hex, 16);
    return (c >= 0xa0 && c <= 0xff) || (c >= 0x20 && c < 0x7f) ? String.fromCharCode(c) : spelled;
  });
}

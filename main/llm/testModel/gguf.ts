// A small GGUF v3 writer (little-endian) for the tiny models that tests and benchmarks make
// themselves. It writes only what those models need: scalar, string and array metadata, and F32/F16
// tensors. Layout: header, metadata, tensor infos, padding to the alignment, then each tensor's
// data at an aligned offset (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md).

/** GGUF metadata value types (gguf_type). */
export const GgufValueType = {
  uint8: 0,
  int8: 1,
  uint16: 2,
  int16: 3,
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
  uint64: 10,
  int64: 11,
  float64: 12,
} as const;

/** ggml tensor types this writer can store. */
export const GgmlType = { F32: 0, F16: 1 } as const;
export type GgmlTensorType = (typeof GgmlType)[keyof typeof GgmlType];

/** One metadata value, tagged with its GGUF type. */
export type GgufValue =
  | { type: 'uint32'; value: number }
  | { type: 'int32'; value: number }
  | { type: 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'stringArray'; value: readonly string[] }
  | { type: 'float32Array'; value: ArrayLike<number> }
  | { type: 'int32Array'; value: ArrayLike<number> }
  | { type: 'boolArray'; value: readonly boolean[] };

export const gguf = {
  uint32: (value: number): GgufValue => ({ type: 'uint32', value }),
  int32: (value: number): GgufValue => ({ type: 'int32', value }),
  float32: (value: number): GgufValue => ({ type: 'float32', value }),
  bool: (value: boolean): GgufValue => ({ type: 'bool', value }),
  string: (value: string): GgufValue => ({ type: 'string', value }),
  stringArray: (value: readonly string[]): GgufValue => ({ type: 'stringArray', value }),
  float32Array: (value: ArrayLike<number>): GgufValue => ({ type: 'float32Array', value }),
  int32Array: (value: ArrayLike<number>): GgufValue => ({ type: 'int32Array', value }),
  boolArray: (value: readonly boolean[]): GgufValue => ({ type: 'boolArray', value }),
};

export interface GgufTensor {
  name: string;
  /** Dimensions innermost-first, as GGUF lists them (ggml `ne`): a matrix of n rows of k is [k, n]. */
  dims: readonly number[];
  type: GgmlTensorType;
  /** Element values, row-major with the first dimension fastest; length = product of dims. */
  data: ArrayLike<number>;
}

export interface GgufFile {
  /** Ordered metadata; keys must be unique. */
  metadata: ReadonlyArray<readonly [string, GgufValue]>;
  tensors: readonly GgufTensor[];
  /** Data alignment in bytes (default 32, GGUF's default; anything else is written as general.alignment). */
  alignment?: number;
}

const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian uint32
const GGUF_VERSION = 3;

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** Converts a number to IEEE half precision bits (via float32), rounding to nearest even. */
export function float32ToFloat16Bits(value: number): number {
  scratchF32[0] = value;
  const x = scratchU32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0); // Inf / NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow to Inf
  if (e <= 0) {
    // Subnormal half (or zero).
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1) === 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half += 1; // a carry into the exponent is correct
  return sign | half;
}

function elementCount(dims: readonly number[]): number {
  return dims.reduce((n, d) => n * d, 1);
}

function tensorByteSize(t: GgufTensor): number {
  return elementCount(t.dims) * (t.type === GgmlType.F16 ? 2 : 4);
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/** Serialises a GGUF v3 file into one Buffer. Same input, same bytes. */
export function writeGguf(file: GgufFile): Buffer {
  const alignment = file.alignment ?? 32;
  const metadata: Array<readonly [string, GgufValue]> = [...file.metadata];
  const keys = new Set<string>();
  for (const [key] of metadata) {
    if (keys.has(key)) throw new Error(`duplicate GGUF metadata key: ${key}`);
    keys.add(key);
  }
  if (alignment !== 32 && !keys.has('general.alignment')) metadata.push(['general.alignment', gguf.uint32(alignment)]);
  const names = new Set<string>();
  for (const t of file.tensors) {
    if (names.has(t.name)) throw new Error(`duplicate tensor name: ${t.name}`);
    names.add(t.name);
    if (t.data.length !== elementCount(t.dims)) {
      throw new Error(`tensor ${t.name}: ${t.data.length} values for dims [${t.dims.join(', ')}]`);
    }
  }

  // Header, metadata and tensor infos are small: build them from chunks.
  const chunks: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    chunks.push(b);
  };
  const i32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    chunks.push(b);
  };
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    chunks.push(b);
  };
  const f32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    chunks.push(b);
  };
  const str = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    u64(bytes.length);
    chunks.push(bytes);
  };

  u32(GGUF_MAGIC);
  u32(GGUF_VERSION);
  u64(file.tensors.length);
  u64(metadata.length);

  for (const [key, v] of metadata) {
    str(key);
    switch (v.type) {
      case 'uint32':
        u32(GgufValueType.uint32);
        u32(v.value);
        break;
      case 'int32':
        u32(GgufValueType.int32);
        i32(v.value);
        break;
      case 'float32':
        u32(GgufValueType.float32);
        f32(v.value);
        break;
      case 'bool':
        u32(GgufValueType.bool);
        chunks.push(Buffer.from([v.value ? 1 : 0]));
        break;
      case 'string':
        u32(GgufValueType.string);
        str(v.value);
        break;
      case 'stringArray':
        u32(GgufValueType.array);
        u32(GgufValueType.string);
        u64(v.value.length);
        for (const s of v.value) str(s);
        break;
      case 'float32Array': {
        u32(GgufValueType.array);
        u32(GgufValueType.float32);
        u64(v.value.length);
        const b = Buffer.alloc(v.value.length * 4);
        for (let i = 0; i < v.value.length; i++) b.writeFloatLE(v.value[i]!, i * 4);
        chunks.push(b);
        break;
      }
      case 'int32Array': {
        u32(GgufValueType.array);
        u32(GgufValueType.int32);
        u64(v.value.length);
        const b = Buffer.alloc(v.value.length * 4);
        for (let i = 0; i < v.value.length; i++) b.writeInt32LE(v.value[i]!, i * 4);
        chunks.push(b);
        break;
      }
      case 'boolArray':
        u32(GgufValueType.array);
        u32(GgufValueType.bool);
        u64(v.value.length);
        chunks.push(Buffer.from(v.value.map((b) => (b ? 1 : 0))));
        break;
    }
  }

  let offset = 0;
  const offsets: number[] = [];
  for (const t of file.tensors) {
    offset = alignUp(offset, alignment);
    offsets.push(offset);
    str(t.name);
    u32(t.dims.length);
    for (const d of t.dims) u64(d);
    u32(t.type);
    u64(offset);
    offset += tensorByteSize(t);
  }
  const dataSize = alignUp(offset, alignment);

  const head = Buffer.concat(chunks);
  const dataStart = alignUp(head.length, alignment);
  const out = Buffer.alloc(dataStart + dataSize); // zero-filled, so all padding is zeros
  head.copy(out, 0);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  file.tensors.forEach((t, index) => {
    let at = dataStart + offsets[index]!;
    const { data } = t;
    if (t.type === GgmlType.F16) {
      for (let i = 0; i < data.length; i++, at += 2) view.setUint16(at, float32ToFloat16Bits(data[i]!), true);
    } else {
      for (let i = 0; i < data.length; i++, at += 4) view.setFloat32(at, data[i]!, true);
    }
  });
  return out;
}

// Test vectors of internal/tools/kernelvec, shared by the GPU harness and the
// CPU emulation: the constants, packed inputs and the CPU twin's outputs.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "../schedule_gen.cuh"
#include "../shape.cuh"

struct Vectors {
  uint32_t n = 0, meBits = 0, bits = 0, words = 0, items = 0, outputs = 0;
  std::vector<uint32_t> consts, in, scalars, want;

  uint32_t inRows() const { return 2 * n + 1; }
  uint32_t outRows() const { return outputs * n; }
};

// Parts are a kernelvec file's parts after its header, in the file's order.
using Parts = std::vector<std::vector<uint32_t>*>;

// read_kernelvec loads a kernelvec file: its header h, whose first words
// must be magic and version (else it is not a `what` file), then the Parts
// that layout() sizes from h.
template <size_t N, class Layout>
inline bool read_kernelvec(const char* path, uint32_t magic, uint32_t version, const char* what, uint32_t (&h)[N],
                           Layout layout, std::string& err) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    err = std::string("cannot open ") + path;
    return false;
  }
  bool ok = fread(h, sizeof h, 1, f) == 1;
  if (ok && (h[0] != magic || h[1] != version)) {
    err = std::string("not a ") + what + " file (magic or version)";
    fclose(f);
    return false;
  }
  if (ok)
    for (std::vector<uint32_t>* part : layout())
      ok = ok && fread(part->data(), sizeof(uint32_t), part->size(), f) == part->size();
  fclose(f);
  if (!ok) err = std::string("short file ") + path;
  return ok;
}

// read_vectors loads FILE: magic 0x56434345, version 2, n, m_e bits, t, W,
// items I, outputs per item V, constant words C; then C constants,
// (2n+1)·I inputs, W·I scalars and V·n·I expected outputs, row r of item i
// at r·I + i.
inline bool read_vectors(const char* path, Vectors& v, std::string& err) {
  uint32_t h[9];
  const auto layout = [&] {
    v.n = h[2], v.meBits = h[3], v.bits = h[4], v.words = h[5], v.items = h[6], v.outputs = h[7];
    const size_t I = v.items;
    v.consts.resize(h[8]);
    v.in.resize(v.inRows() * I);
    v.scalars.resize(v.words * I);
    v.want.resize(v.outRows() * I);
    return Parts{&v.consts, &v.in, &v.scalars, &v.want};
  };
  return read_kernelvec(path, 0x56434345u, 2, "kernelvec", h, layout, err);
}

// tile returns rows × batch words: item i of the batch is item i mod I of src.
inline std::vector<uint32_t> tile(const std::vector<uint32_t>& src, uint32_t rows, uint32_t I,
                                  uint32_t batch) {
  std::vector<uint32_t> dst(size_t(rows) * batch);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t i = 0; i < batch; ++i) dst[size_t(r) * batch + i] = src[size_t(r) * I + i % I];
  return dst;
}

// compare prints the first mismatches of got against want (rows × batch)
// and returns how many words differ.
inline size_t compare(const char* what, const std::vector<uint32_t>& got,
                      const std::vector<uint32_t>& want, uint32_t rows, uint32_t batch) {
  size_t bad = 0;
  for (uint32_t i = 0; i < batch; ++i)
    for (uint32_t r = 0; r < rows; ++r) {
      const size_t w = size_t(r) * batch + i;
      if (got[w] != want[w] && ++bad <= 5)
        printf("  MISMATCH %s: item %u row %u: got %u want %u\n", what, i, r, got[w], want[w]);
    }
  return bad;
}

// The channels per base of each curve and width (ECM_CURVES): kChannels_<curve>_<chan>.
#define ECM_AS_CHANNELS(tag, Curve, chan, w, n, bits, AM) constexpr uint32_t kChannels_##tag##_##chan = n;
ECM_CURVES(ECM_AS_CHANNELS)
#undef ECM_AS_CHANNELS

// Every entry point (internal/kernels/entries.go): its symbol, the
// CURVE_SCHEDULE_CHANNELS its vectors are for, its channels per base, lanes
// per item, and how a block's threads take items (shape.cuh).
struct EntryShape {
  const char* name;
  const char* curve;
  uint32_t n;
  uint32_t lanes;
  uint32_t shape;  // EcmShape
  uint32_t items;  // the items every block must hold, 0 for any number
};

#define ECM_AS_SHAPE(curve, Curve, sched, Sched, ext, Ext, mapping, Mapping_, chan, lanes, shape, regs, items) \
  {"ecm_ladder_" #curve "_" #sched "_" #ext "_" #mapping "_" #chan, #curve "_" #sched "_" #chan,            \
   kChannels_##curve##_##chan, lanes, shape, items},
inline const EntryShape kEntryShapes[] = {ECM_ENTRIES(ECM_AS_SHAPE)};

// entry_named reports whether SELECTOR names entry point e: its
// CURVE_SCHEDULE_CHANNELS, or its CURVE_SCHEDULE (every channel width).
inline bool entry_named(const EntryShape& e, const std::string& selector) {
  const std::string key = e.curve;
  return selector == key || selector == key.substr(0, key.rfind('_'));
}

// entry_fits reports whether the vectors v were made for entry point e's
// channel width: the widths of a curve have different n.
inline bool entry_fits(const EntryShape& e, const Vectors& v) { return e.n == v.n; }

// ---------------------------------------------------------------------------
// Finish vectors (kernelvec -finish) for the finish kernel (finish.cuh).

struct FinishVectors {
  uint32_t n = 0, outputs = 0, inRows = 0, resultRows = 0, items = 0;
  uint32_t threads = 0, itemsPerThread = 0;  // kernels.FinishThreads and kernels.FinishItemsMax
  std::vector<uint32_t> consts, in, outs, want;

  uint32_t outRows() const { return outputs * n; }
};

// read_finish_vectors loads FILE: magic 0x46434345, version 1, n, outputs
// per item V, input rows R, result rows Q, items I, the finish's block size
// and most items per thread, constant words C; then C finish constants, R·I
// inputs, V·n·I ladder outputs and V·n·I words of the output buffer after
// the finish (Q rows of results, then the outputs untouched), row r of item
// i at r·I + i.
inline bool read_finish_vectors(const char* path, FinishVectors& v, std::string& err) {
  uint32_t h[10];
  const auto layout = [&] {
    v.n = h[2], v.outputs = h[3], v.inRows = h[4], v.resultRows = h[5], v.items = h[6];
    v.threads = h[7], v.itemsPerThread = h[8];
    const size_t I = v.items;
    v.consts.resize(h[9]);
    v.in.resize(v.inRows * I);
    v.outs.resize(v.outRows() * I);
    v.want.resize(v.outRows() * I);
    return Parts{&v.consts, &v.in, &v.outs, &v.want};
  };
  if (!read_kernelvec(path, 0x46434345u, 1, "kernelvec -finish", h, layout, err)) return false;
  if (v.resultRows > v.outRows()) {
    err = std::string(path) + ": more result rows than output rows";
    return false;
  }
  return true;
}

// Every entry point of the kernels around the ladder, the finish's, the
// verify's and the prepare's: its symbol, the CURVE_KERNEL_CHANNELS its
// vectors are for (p224_finish_c16, p224_prepare_c16, ...), and its
// channels per base.
struct ItemShape {
  const char* name;
  const char* curve;
  uint32_t n;
};

#define ECM_AS_FINISH_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_finish_" #tag "_" #chan, #tag "_finish_" #chan, n},
inline const ItemShape kFinishShapes[] = {ECM_CURVES(ECM_AS_FINISH_SHAPE)};
#undef ECM_AS_FINISH_SHAPE

#define ECM_AS_VERIFY_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_verify_" #tag "_" #chan, #tag "_verify_" #chan, n},
inline const ItemShape kVerifyShapes[] = {ECM_CURVES(ECM_AS_VERIFY_SHAPE)};
#undef ECM_AS_VERIFY_SHAPE

#define ECM_AS_PREPARE_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_prepare_" #tag "_" #chan, #tag "_prepare_" #chan, n},
inline const ItemShape kPrepareShapes[] = {ECM_CURVES(ECM_AS_PREPARE_SHAPE)};
#undef ECM_AS_PREPARE_SHAPE

// item_named reports whether SELECTOR names entry point e: its
// CURVE_KERNEL_CHANNELS, or its CURVE_KERNEL (every channel width).
inline bool item_named(const ItemShape& e, const std::string& selector) {
  const std::string key = e.curve;
  return selector == key || selector == key.substr(0, key.rfind('_'));
}

// ---------------------------------------------------------------------------
// Prepare vectors (kernelvec -prepare) for the prepare kernel (prepare.cuh).

struct PrepareVectors {
  uint32_t n = 0, inRows = 0, ladderRows = 0, items = 0;
  uint32_t threads = 0;  // kernels.FinishThreads
  std::vector<uint32_t> consts, raw, want;
};

// read_prepare_vectors loads FILE: magic 0x50434345, version 1, n, input
// rows R, the ladder's input rows L (before the finish rows), items I, the
// prepare's block size, constant words C; then C prepare constants, R·I
// words of the input buffer before the prepare and R·I after it, row r of
// item i at r·I + i.
inline bool read_prepare_vectors(const char* path, PrepareVectors& v, std::string& err) {
  uint32_t h[8];
  const auto layout = [&] {
    v.n = h[2], v.inRows = h[3], v.ladderRows = h[4], v.items = h[5], v.threads = h[6];
    const size_t I = v.items;
    v.consts.resize(h[7]);
    v.raw.resize(size_t(v.inRows) * I);
    v.want.resize(size_t(v.inRows) * I);
    return Parts{&v.consts, &v.raw, &v.want};
  };
  if (!read_kernelvec(path, 0x50434345u, 1, "kernelvec -prepare", h, layout, err)) return false;
  if (v.ladderRows >= v.inRows || v.items == 0) {
    err = std::string(path) + ": no finish rows, or no items";
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Wire vectors (kernelvec -unpack and -pack) for the unpack and pack kernels
// (wire.cuh), those of a verify batch (kernelvec -verifyunpack and
// -verifypack, verify.cuh) and those of a signing batch (kernelvec
// -signunpack and -signpack, sign.cuh); the entry points of each.

#define ECM_AS_UNPACK_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_unpack_" #tag "_" #chan, #tag "_unpack_" #chan, n},
inline const ItemShape kUnpackShapes[] = {ECM_CURVES(ECM_AS_UNPACK_SHAPE)};
#undef ECM_AS_UNPACK_SHAPE

#define ECM_AS_PACK_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_pack_" #tag "_" #chan, #tag "_pack_" #chan, n},
inline const ItemShape kPackShapes[] = {ECM_CURVES(ECM_AS_PACK_SHAPE)};
#undef ECM_AS_PACK_SHAPE

#define ECM_AS_VERIFY_UNPACK_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_verifyunpack_" #tag "_" #chan, #tag "_verifyunpack_" #chan, n},
inline const ItemShape kVerifyUnpackShapes[] = {ECM_CURVES(ECM_AS_VERIFY_UNPACK_SHAPE)};
#undef ECM_AS_VERIFY_UNPACK_SHAPE

#define ECM_AS_VERIFY_PACK_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_verifypack_" #tag "_" #chan, #tag "_verifypack_" #chan, n},
inline const ItemShape kVerifyPackShapes[] = {ECM_CURVES(ECM_AS_VERIFY_PACK_SHAPE)};
#undef ECM_AS_VERIFY_PACK_SHAPE

#define ECM_AS_SIGN_UNPACK_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_signunpack_" #tag "_" #chan, #tag "_signunpack_" #chan, n},
inline const ItemShape kSignUnpackShapes[] = {ECM_CURVES(ECM_AS_SIGN_UNPACK_SHAPE)};
#undef ECM_AS_SIGN_UNPACK_SHAPE

#define ECM_AS_SIGN_PACK_SHAPE(tag, Curve, chan, w, n, bits, AM) \
  {"ecm_signpack_" #tag "_" #chan, #tag "_signpack_" #chan, n},
inline const ItemShape kSignPackShapes[] = {ECM_CURVES(ECM_AS_SIGN_PACK_SHAPE)};
#undef ECM_AS_SIGN_PACK_SHAPE

// kSignRows is the sign rows of a signing batch's item, after its finish
// rows: k, d and h1 (ladder.SignRows).
constexpr uint32_t kSignRows = ECM_SIGN_ROWS;

// tile_records copies count records of size bytes each to dst + at, record
// i being record i mod I of the I at src + from: the items of a batch of
// count from a file's I, on the wire.
inline void tile_records(uint8_t* dst, size_t at, const uint8_t* src, size_t from, uint32_t size, uint32_t I,
                         uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) memcpy(dst + at + size_t(i) * size, src + from + size_t(i % I) * size, size);
}

// tile_wire returns the wire bytes of a batch of count items from src, the
// wire of a file's I items, both laid out in sections, one a size of
// `sizes`: the items' records of sizes[0] bytes, then those of sizes[1],
// and so on. Record i of each section of the batch is record i mod I of
// the file's; the word `fill` pads the last word, and `tail` more follow.
inline std::vector<uint32_t> tile_wire(const std::vector<uint32_t>& src, const std::vector<uint32_t>& sizes,
                                       uint32_t I, uint32_t count, uint32_t fill, uint32_t tail) {
  size_t bytes = 0;
  for (uint32_t size : sizes) bytes += size_t(count) * size;
  std::vector<uint32_t> w((bytes + 3) / 4 + tail, fill);
  uint8_t* dst = reinterpret_cast<uint8_t*>(w.data());
  const uint8_t* s = reinterpret_cast<const uint8_t*>(src.data());
  size_t at = 0, from = 0;
  for (uint32_t size : sizes) {
    tile_records(dst, at, s, from, size, I, count);
    at += size_t(count) * size, from += size_t(I) * size;
  }
  return w;
}

struct UnpackVectors {
  uint32_t n = 0, inRows = 0, ladderRows = 0, words = 0, byteLen = 0, items = 0;
  uint32_t threads = 0;  // kernels.FinishThreads
  bool verify = false;   // a verify batch's (kernelvec -verifyunpack)
  bool sign = false;     // a signing batch's (kernelvec -signunpack)
  std::vector<uint32_t> consts, wire, in, scalars, inWant, scalarsWant;
  std::vector<uint32_t> wireWant;  // a signing batch's wire input after the unpack: each nonce over its key

  // pointBytes is the bytes of an item's point on the wire: none on the
  // comb, whose ladder has no input rows.
  uint32_t pointBytes() const { return ladderRows ? 1 + 2 * byteLen : 0; }
  // sections is the bytes of an item's record in each section of the
  // wire input: its scalar (a signing batch's key), its point, and in a
  // verify batch its u1·G, r, r + n and flags, in a signing batch its h1.
  std::vector<uint32_t> sections() const {
    std::vector<uint32_t> s{byteLen, pointBytes()};
    if (verify) s.insert(s.end(), {2 * byteLen, byteLen, byteLen, 1});
    if (sign) s.push_back(byteLen);
    return s;
  }
  uint32_t itemBytes() const {
    uint32_t b = 0;
    for (uint32_t size : sections()) b += size;
    return b;
  }
};

// read_wire_in_vectors loads FILE of the unpack's format: magic, version
// 1, n, input rows R, the ladder's input rows L (before the finish rows),
// scalar words W, the bytes B of a scalar and a coordinate, items I, the
// unpack's block size, constant words C; then C prepare constants,
// ⌈I·S/4⌉ words of the wire input of the I items (S = itemBytes(): the I
// scalars, then the I points where L > 0, then a verify or signing batch's
// sections), R·I input words and W·I scalar words before the unpack, and
// R·I and W·I after it, row r of item i at r·I + i; then, in a signing
// batch's, as many words as the wire input's, after the unpack.
inline bool read_wire_in_vectors(const char* path, uint32_t magic, const char* what, UnpackVectors& v,
                                 std::string& err) {
  uint32_t h[10];
  const auto layout = [&] {
    v.n = h[2], v.inRows = h[3], v.ladderRows = h[4], v.words = h[5], v.byteLen = h[6], v.items = h[7];
    v.threads = h[8];
    const size_t I = v.items;
    v.consts.resize(h[9]);
    v.wire.resize((I * v.itemBytes() + 3) / 4);
    v.in.resize(size_t(v.inRows) * I);
    v.scalars.resize(size_t(v.words) * I);
    v.inWant.resize(size_t(v.inRows) * I);
    v.scalarsWant.resize(size_t(v.words) * I);
    Parts parts{&v.consts, &v.wire, &v.in, &v.scalars, &v.inWant, &v.scalarsWant};
    if (v.sign) {
      v.wireWant.resize(v.wire.size());
      parts.push_back(&v.wireWant);
    }
    return parts;
  };
  if (!read_kernelvec(path, magic, 1, what, h, layout, err)) return false;
  if (v.ladderRows >= v.inRows || v.items == 0 || v.byteLen % 4 || v.byteLen > 32) {
    err = std::string(path) + ": no finish rows, no items, or a byte length the kernel does not take";
    return false;
  }
  return true;
}

// read_unpack_vectors loads a kernelvec -unpack FILE: magic 0x55434345
// (read_wire_in_vectors).
inline bool read_unpack_vectors(const char* path, UnpackVectors& v, std::string& err) {
  return read_wire_in_vectors(path, 0x55434345u, "kernelvec -unpack", v, err);
}

// read_verify_unpack_vectors loads a kernelvec -verifyunpack FILE: magic
// 0x57434345 (read_wire_in_vectors), on the co-Z ladder, whose input rows
// end with the finish's and the verify rows (ECM_VERIFY_ROWS).
inline bool read_verify_unpack_vectors(const char* path, UnpackVectors& v, std::string& err) {
  v.verify = true;
  if (!read_wire_in_vectors(path, 0x57434345u, "kernelvec -verifyunpack", v, err)) return false;
  if (v.ladderRows == 0 || v.inRows != v.ladderRows + ECM_FINISH_ROWS + ECM_VERIFY_ROWS) {
    err = std::string(path) + ": not the co-Z ladder's rows, the finish's and the verify rows";
    return false;
  }
  return true;
}

// read_sign_unpack_vectors loads a kernelvec -signunpack FILE: magic
// 0x53434345 (read_wire_in_vectors), on the comb, whose input rows are the
// finish's and the sign rows, and whose wire input after the unpack ends
// the file.
inline bool read_sign_unpack_vectors(const char* path, UnpackVectors& v, std::string& err) {
  v.sign = true;
  if (!read_wire_in_vectors(path, 0x53434345u, "kernelvec -signunpack", v, err)) return false;
  if (v.ladderRows != 0 || v.inRows != ECM_FINISH_ROWS + kSignRows) {
    err = std::string(path) + ": not the comb's finish rows and the sign rows";
    return false;
  }
  return true;
}

// unpack_wire returns the wire input of a batch of count items from src
// (the file's wire input, or a signing batch's after the unpack), item i
// being item i mod I of the file: its sections (the count scalars, then
// the count points, ...), as words, zero bytes padding the last.
inline std::vector<uint32_t> unpack_wire(const UnpackVectors& v, const std::vector<uint32_t>& src, uint32_t count) {
  return tile_wire(src, v.sections(), v.items, count, 0, 0);
}

struct PackVectors {
  uint32_t n = 0, byteLen = 0, resultRows = 0, items = 0;
  uint32_t threads = 0;  // kernels.FinishThreads
  std::vector<uint32_t> consts, results, wire, want;

  // record is the bytes of an item's result on the wire, before the
  // outcome bytes of all.
  uint32_t record() const { return 1 + 2 * byteLen; }
};

// read_pack_vectors loads FILE: magic 0x4b434345, version 1, n, the bytes
// B of a coordinate, result rows Q, items I, the pack's block size,
// constant words C; then C finish constants, Q·I words of the finish's
// results (row r of item i at r·I + i), and ⌈I·(2 + 2B)/4⌉ words of the
// wire output of the I items before the pack and as many after it: the I
// results of 1 + 2B bytes, then the I outcome bytes.
inline bool read_pack_vectors(const char* path, PackVectors& v, std::string& err) {
  uint32_t h[8];
  const auto layout = [&] {
    v.n = h[2], v.byteLen = h[3], v.resultRows = h[4], v.items = h[5], v.threads = h[6];
    const size_t I = v.items;
    v.consts.resize(h[7]);
    v.results.resize(size_t(v.resultRows) * I);
    v.wire.resize((I * (v.record() + 1) + 3) / 4);
    v.want.resize(v.wire.size());
    return Parts{&v.consts, &v.results, &v.wire, &v.want};
  };
  if (!read_kernelvec(path, 0x4b434345u, 1, "kernelvec -pack", h, layout, err)) return false;
  if (v.items == 0 || v.byteLen % 4 || v.byteLen > 32 || v.resultRows != 2 * v.byteLen / 4 + 1) {
    err = std::string(path) + ": no items, or a byte length the kernel does not take";
    return false;
  }
  return true;
}

// pack_wire returns the wire output of a batch of count items from src
// (the file's wire before or after the pack), item i being item i mod I of
// the file: the count results, then the count outcome bytes, then poison
// to the end of the last word and `tail` words more.
inline std::vector<uint32_t> pack_wire(const PackVectors& v, const std::vector<uint32_t>& src, uint32_t count,
                                       uint32_t poison, uint32_t tail) {
  return tile_wire(src, {v.record(), 1}, v.items, count, poison, tail);
}

struct VerifyPackVectors {
  uint32_t n = 0, outRows = 0, items = 0;
  uint32_t threads = 0;  // kernels.FinishThreads
  std::vector<uint32_t> consts, outs, wire, want;
};

// read_verify_pack_vectors loads FILE: magic 0x4f434345, version 1, n,
// output rows Q, items I, the pack's block size, constant words C; then C
// finish constants, Q·I words of the output buffer after the verify kernel
// (the outcomes in row 0, row r of item i at r·I + i), and ⌈I/4⌉ words of
// the wire output of the I items before the pack and as many after it,
// item i's outcome byte at byte i.
inline bool read_verify_pack_vectors(const char* path, VerifyPackVectors& v, std::string& err) {
  uint32_t h[7];
  const auto layout = [&] {
    v.n = h[2], v.outRows = h[3], v.items = h[4], v.threads = h[5];
    const size_t I = v.items;
    v.consts.resize(h[6]);
    v.outs.resize(size_t(v.outRows) * I);
    v.wire.resize((I + 3) / 4);
    v.want.resize(v.wire.size());
    return Parts{&v.consts, &v.outs, &v.wire, &v.want};
  };
  if (!read_kernelvec(path, 0x4f434345u, 1, "kernelvec -verifypack", h, layout, err)) return false;
  if (v.items == 0 || v.outRows == 0) {
    err = std::string(path) + ": no items, or no output rows";
    return false;
  }
  return true;
}

struct SignPackVectors {
  uint32_t n = 0, byteLen = 0, resultRows = 0, inRows = 0, items = 0;
  uint32_t threads = 0;  // kernels.FinishThreads
  std::vector<uint32_t> consts, results, in, want;

  // record is the bytes of an item's x(k·G)‖k on the wire, before the
  // outcome bytes of all.
  uint32_t record() const { return 2 * byteLen; }
};

// read_sign_pack_vectors loads FILE: magic 0x58434345, version 1, n, the
// bytes B of a coordinate, result rows Q, input rows R, items I, the
// pack's block size, constant words C; then C finish constants, Q·I words
// of the finish's results and R·I words of the input rows before the pack
// (the sign rows after the finish rows), row r of item i at r·I + i, and
// ⌈I·(2B + 1)/4⌉ words of the wire output of the I items that the pack
// writes over the input rows: the I records x(k·G)‖k of 2B bytes, then the
// I outcome bytes.
inline bool read_sign_pack_vectors(const char* path, SignPackVectors& v, std::string& err) {
  uint32_t h[9];
  const auto layout = [&] {
    v.n = h[2], v.byteLen = h[3], v.resultRows = h[4], v.inRows = h[5], v.items = h[6], v.threads = h[7];
    const size_t I = v.items;
    v.consts.resize(h[8]);
    v.results.resize(size_t(v.resultRows) * I);
    v.in.resize(size_t(v.inRows) * I);
    v.want.resize((I * (v.record() + 1) + 3) / 4);
    return Parts{&v.consts, &v.results, &v.in, &v.want};
  };
  if (!read_kernelvec(path, 0x58434345u, 1, "kernelvec -signpack", h, layout, err)) return false;
  if (v.items == 0 || v.byteLen % 4 || v.byteLen > 32 || v.resultRows != 2 * v.byteLen / 4 + 1 ||
      v.inRows != ECM_FINISH_ROWS + kSignRows || v.record() + 1 > 4 * ECM_FINISH_ROWS) {
    err = std::string(path) + ": no items, a byte length the kernel does not take, or not the comb's finish rows "
                              "and the sign rows";
    return false;
  }
  return true;
}

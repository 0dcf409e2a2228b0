// Fuzz target for the quantized ops (QuantizeV2, Dequantize, Requantize, RequantizationRange,
// QuantizedMatMul, QuantizedConv2D and the fused conv/matmul): the input bytes choose an op,
// its shapes, types, attributes, ranges (NaN, infinities and extremes included) and data, and
// the 8-bit kernel. Invariants: no crash or sanitizer report; each call is OK or fails with
// INVALID_ARGUMENT, NOT_FOUND or UNIMPLEMENTED; an OK call returns the op's outputs; an OK
// fused matmul or conv gives the same bytes through swigflow's packed weights,
// and a packing with a flipped bit is refused or at least does not crash.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/op.h"

namespace {

using swigflow::AttrMap;
using swigflow::DataType;
using swigflow::Tensor;

void Require(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
  }
}

// Reads the recipe; past the end every read is 0.
class Recipe {
 public:
  Recipe(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  int Pick(int n) { return Byte() % n; }
  bool Flag() { return Byte() & 1; }
  int64_t Dim(int max) { return Pick(max + 1); }
  float Range() {
    static const float kSpecial[] = {0.0f,
                                     -0.0f,
                                     1.0f,
                                     -1.0f,
                                     1e-30f,
                                     -1e-30f,
                                     3e38f,
                                     -3e38f,
                                     __builtin_inff(),
                                     -__builtin_inff(),
                                     __builtin_nanf("")};
    const uint8_t kind = Byte();
    if (kind < 64) return kSpecial[kind % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
    float value;
    const uint32_t bits =
        uint32_t{Byte()} | uint32_t{Byte()} << 8 | uint32_t{Byte()} << 16 | uint32_t{Byte()} << 24;
    memcpy(&value, &bits, 4);
    return kind < 128 ? value : static_cast<float>(static_cast<int8_t>(kind)) / 8.0f;
  }
  // A tensor of `type` with `shape`, filled from the recipe (floats: Range()).
  Tensor Fill(DataType type, std::vector<int64_t> shape) {
    Tensor t(type, shape);
    if (type == DataType::kFloat) {
      for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = Range();
    } else {
      auto* bytes = static_cast<uint8_t*>(t.raw());
      for (size_t i = 0; i < t.bytes(); ++i) bytes[i] = Byte();
    }
    return t;
  }
  Tensor Scalar() { return Fill(DataType::kFloat, {}); }
  // Usually a scalar; sometimes a vector of n (per channel) or of another length.
  Tensor Ranges(int64_t n) {
    const int kind = Pick(8);
    if (kind < 5) return Scalar();
    return Fill(DataType::kFloat, {kind == 7 ? Dim(6) : n});
  }

 private:
  const uint8_t* data_;
  size_t size_, pos_ = 0;
};

const DataType kQuantized[] = {DataType::kQUInt8, DataType::kQInt8, DataType::kQUInt16,
                               DataType::kQInt16, DataType::kQInt32};
const DataType kEight[] = {DataType::kQUInt8, DataType::kQInt8};

DataType QuantizedType(Recipe* r) { return kQuantized[r->Pick(5)]; }
DataType EightBitType(Recipe* r) { return r->Pick(8) == 0 ? QuantizedType(r) : kEight[r->Pick(2)]; }

std::vector<int64_t> Window(Recipe* r, int max) {
  return {r->Pick(6) == 0 ? r->Dim(2) : 1, r->Dim(max), r->Dim(max), r->Pick(6) == 0 ? 2 : 1};
}

void AddConvAttrs(Recipe* r, AttrMap* attrs, bool fused) {
  (*attrs)["strides"] = Window(r, 3);
  (*attrs)["padding"] = std::string(r->Flag() ? "SAME" : "VALID");
  if (r->Flag()) (*attrs)["dilations"] = Window(r, 2);
  if (fused && r->Pick(4) == 0) {
    std::vector<int64_t> pads(r->Pick(4) == 0 ? r->Dim(9) : 8);
    for (auto& p : pads) p = r->Pick(8) == 0 ? -1 : r->Dim(3);
    (*attrs)["padding_list"] = pads;
  }
}

// One call: the op's name, inputs and attributes from the recipe.
void Call(Recipe* r, std::string* name, std::vector<Tensor>* in, AttrMap* attrs) {
  static const char* kModes[] = {"MIN_COMBINED", "MIN_FIRST", "SCALED", "BOGUS"};
  switch (r->Pick(8)) {
    case 0: {
      *name = "QuantizeV2";
      const std::vector<int64_t> shape = {r->Dim(5), r->Dim(7)};
      in->push_back(r->Fill(DataType::kFloat, shape));
      const bool axis = r->Pick(3) == 0;
      in->push_back(axis ? r->Fill(DataType::kFloat, {r->Dim(7)}) : r->Scalar());
      in->push_back(axis ? r->Fill(DataType::kFloat, {r->Dim(7)}) : r->Scalar());
      (*attrs)["T"] = QuantizedType(r);
      (*attrs)["mode"] = std::string(kModes[r->Pick(4)]);
      (*attrs)["round_mode"] = std::string(r->Flag() ? "HALF_TO_EVEN" : "HALF_AWAY_FROM_ZERO");
      (*attrs)["narrow_range"] = r->Flag();
      if (axis) (*attrs)["axis"] = int64_t{r->Pick(4) - 1};
      if (r->Flag()) (*attrs)["ensure_minimum_range"] = r->Range();
      return;
    }
    case 1: {
      *name = "Dequantize";
      const DataType t = QuantizedType(r);
      in->push_back(r->Fill(t, {r->Dim(5), r->Dim(7)}));
      const bool axis = r->Pick(3) == 0;
      in->push_back(axis ? r->Fill(DataType::kFloat, {r->Dim(7)}) : r->Scalar());
      in->push_back(axis ? r->Fill(DataType::kFloat, {r->Dim(7)}) : r->Scalar());
      (*attrs)["T"] = t;
      (*attrs)["mode"] = std::string(kModes[r->Pick(4)]);
      (*attrs)["narrow_range"] = r->Flag();
      if (axis) (*attrs)["axis"] = int64_t{r->Pick(4) - 1};
      return;
    }
    case 2:
    case 3: {
      const bool requantize = r->Flag();
      *name = requantize ? "Requantize" : "RequantizationRange";
      in->push_back(r->Fill(DataType::kQInt32, {r->Dim(40)}));
      in->push_back(r->Scalar());
      in->push_back(r->Scalar());
      (*attrs)["Tinput"] = r->Pick(8) == 0 ? QuantizedType(r) : DataType::kQInt32;
      if (requantize) {
        in->push_back(r->Scalar());
        in->push_back(r->Scalar());
        (*attrs)["out_type"] = QuantizedType(r);
      }
      return;
    }
    case 4:
    case 5: {
      const bool fused = r->Flag();
      *name = fused ? "QuantizedMatMulWithBiasAndReluAndRequantize" : "QuantizedMatMul";
      const bool ta = r->Flag(), tb = r->Flag();
      const int64_t m = r->Dim(20), k = r->Pick(6) == 0 ? r->Dim(400) : r->Dim(20);
      const int64_t kb = r->Pick(10) == 0 ? r->Dim(20) : k, n = r->Dim(20);
      const DataType t1 = EightBitType(r), t2 = EightBitType(r);
      in->push_back(r->Fill(t1, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}));
      in->push_back(r->Fill(t2, tb ? std::vector<int64_t>{n, kb} : std::vector<int64_t>{kb, n}));
      if (fused) {
        const bool qbias = r->Flag();
        in->push_back(r->Fill(qbias ? DataType::kQInt32 : DataType::kFloat,
                              {r->Pick(8) == 0 ? r->Dim(20) : n}));
        (*attrs)["Tbias"] = qbias ? DataType::kQInt32 : DataType::kFloat;
        (*attrs)["input_quant_mode"] = std::string(r->Flag() ? "MIN_FIRST" : "SCALED");
      }
      for (int i = 0; i < 4; ++i) in->push_back(r->Pick(10) == 0 ? r->Ranges(n) : r->Scalar());
      if (fused) {
        in->push_back(r->Scalar());
        in->push_back(r->Scalar());
      }
      (*attrs)["T1"] = t1;
      (*attrs)["T2"] = t2;
      (*attrs)["transpose_a"] = ta;
      (*attrs)["transpose_b"] = tb;
      return;
    }
    default: {
      const bool fused = r->Flag();
      *name = fused ? "QuantizedConv2DWithBiasAndReluAndRequantize" : "QuantizedConv2D";
      const int64_t c = r->Dim(6), o = r->Dim(6);
      const DataType ti = EightBitType(r), tf = EightBitType(r);
      in->push_back(r->Fill(ti, {r->Dim(2), r->Dim(9), r->Dim(9), c}));
      in->push_back(r->Fill(tf, {r->Dim(4), r->Dim(4), r->Pick(10) == 0 ? r->Dim(6) : c, o}));
      if (fused) {
        const bool qbias = r->Flag();
        in->push_back(r->Fill(qbias ? DataType::kQInt32 : DataType::kFloat,
                              {r->Pick(8) == 0 ? r->Dim(6) : o}));
        (*attrs)["Tbias"] = qbias ? DataType::kQInt32 : DataType::kFloat;
      }
      in->push_back(r->Scalar());
      in->push_back(r->Scalar());
      in->push_back(fused ? r->Ranges(o) : r->Scalar());
      in->push_back(fused ? r->Ranges(o) : r->Scalar());
      if (fused) {
        in->push_back(r->Scalar());
        in->push_back(r->Scalar());
      }
      (*attrs)["Tinput"] = ti;
      (*attrs)["Tfilter"] = tf;
      AddConvAttrs(r, attrs, fused);
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Recipe recipe(data, size);
  std::string name;
  std::vector<Tensor> inputs;
  AttrMap attrs;
  Call(&recipe, &name, &inputs, &attrs);
  std::vector<swigflow::Isa> isas = {swigflow::Isa::kScalar};
  if (swigflow::GetCpuFeatures().avx2) isas.push_back(swigflow::Isa::kAvx2);
  if (swigflow::GetCpuFeatures().avx512) isas.push_back(swigflow::Isa::kAvx512);
  const swigflow::Isa isa = isas[recipe.Pick(static_cast<int>(isas.size()))];
  std::vector<Tensor> outputs;
  const swigflow::Status s = swigflow::RunOp(name, inputs, attrs, &outputs, isa);
  Require(s.ok() || swigflow::errors::IsInvalidArgument(s) || swigflow::errors::IsNotFound(s) ||
              swigflow::errors::IsUnimplemented(s),
          s.ToString().c_str());
  const size_t expected = name == "Dequantize" ? 1 : name == "RequantizationRange" ? 2 : 3;
  if (s.ok()) Require(outputs.size() == expected, "outputs");
  const bool matmul = name == "QuantizedMatMulWithBiasAndReluAndRequantize";
  if ((matmul || name == "QuantizedConv2DWithBiasAndReluAndRequantize") && s.ok()) {
    // swigflow's packed form must give the same bytes; a damaged packing an error or anything
    // but a crash.
    std::vector<Tensor> packed;
    AttrMap pack_attrs;
    if (matmul) pack_attrs["transpose"] = attrs["transpose_b"];
    const swigflow::Status p =
        swigflow::RunOp("SwigflowInt8PackWeights", {inputs[1]}, pack_attrs, &packed, isa);
    Require(p.ok() || swigflow::errors::IsInvalidArgument(p), p.ToString().c_str());
    if (!p.ok()) return 0;
    const bool damage = recipe.Pick(4) == 0;
    if (damage) {
      uint8_t* bytes = packed[0].data<uint8_t>();
      bytes[recipe.Pick(static_cast<int>(packed[0].num_elements()))] ^= 1 << recipe.Pick(8);
    }
    std::vector<Tensor> in = {inputs[0], packed[0], packed[1]};
    in.insert(in.end(), inputs.begin() + 2, inputs.end());
    AttrMap packed_attrs = attrs;
    if (matmul) {
      packed_attrs.erase("T2");
      packed_attrs.erase("transpose_b");
    } else {
      packed_attrs.erase("Tfilter");
      const Tensor& f = inputs[1];
      packed_attrs["filter_shape"] = std::vector<int64_t>{f.dim(0), f.dim(1), f.dim(2), f.dim(3)};
    }
    std::vector<Tensor> again;
    const swigflow::Status q =
        swigflow::RunOp(matmul ? "SwigflowInt8PackedMatMulWithBiasAndReluAndRequantize"
                               : "SwigflowInt8PackedConv2DWithBiasAndReluAndRequantize",
                        in, packed_attrs, &again, isa);
    Require(q.ok() || (damage && swigflow::errors::IsInvalidArgument(q)), q.ToString().c_str());
    if (q.ok() && !damage) {
      Require(again[0].num_elements() == outputs[0].num_elements() &&
                  memcmp(again[0].raw(), outputs[0].raw(),
                         static_cast<size_t>(outputs[0].num_elements())) == 0,
              "packed weights gave other bytes");
    }
  }
  return 0;
}

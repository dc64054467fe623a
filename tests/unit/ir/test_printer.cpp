// Tests of the DAG printers: golden text for the sample DAG at each stage,
// number formatting, canonical form (equal DAGs print equally, different
// ones differently), golden Graphviz, and the enum names.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ir/names.hpp"
#include "ir/printer.hpp"
#include "sample_dags.hpp"

namespace epigemm::ir::testing {
namespace {

TEST(Printer, RawGolden) {
  const std::string expected =
      "def epi(accum, alpha, C) -> D, F, m\n"
      "  %0 = accum  : f32\n"
      "  %1 = load alpha [unbound] f32\n"
      "  %2 = mul %0, %1  : f32\n"
      "  %3 = load C [unbound] f32\n"
      "  %4 = const 2.0  : f32\n"
      "  %5 = mul %3, %4  : f32\n"
      "  %6 = add %2, %5  : f32   # F\n"
      "  %7 = relu %6  : f32   # D\n"
      "  %8 = amax %6  : f32   # m\n"
      "  store D [unbound] f32 <- %7\n"
      "  store F [unbound] f32 <- %6\n"
      "  store m [unbound] f32 <- %8\n";
  EXPECT_EQ(print_text(sample_raw()), expected);
}

TEST(Printer, TypedGolden) {
  const std::string expected =
      "def epi(accum, alpha, C) -> D, F, m\n"
      "  %0 = accum  : f32\n"
      "  %1 = load alpha [scalar_value] f32\n"
      "  %2 = mul %0, %1  : f32\n"
      "  %3 = load C [tile] f16\n"
      "  %4 = const 2.0  : f32\n"
      "  %5 = mul %3, %4  : f32\n"
      "  %6 = add %2, %5  : f32   # F\n"
      "  %7 = relu %6  : f32   # D\n"
      "  store D [tile] f16 <- %7\n"
      "  store F [tile] f32 <- %6\n"
      "  store m [scalar_reduce amax] f32 <- %6\n";
  EXPECT_EQ(print_text(sample_typed()), expected);
}

TEST(Printer, ReduceKindsAndLoadKinds) {
  Dag dag = sample_typed();
  dag.nodes[kStoreM].store_kind = StoreKind::RowReduce;
  dag.nodes[kStoreM].op = OpCode::sum;
  dag.nodes[kC].load_kind = LoadKind::Column;
  dag.nodes[kAlpha].load_kind = LoadKind::ScalarTensor;
  const std::string text = print_text(dag);
  EXPECT_NE(text.find("  store m [row_reduce sum] f32 <- %6\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  %3 = load C [column] f16\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  %1 = load alpha [scalar_tensor] f32\n"), std::string::npos) << text;
  dag.nodes[kStoreM].store_kind = StoreKind::ColumnReduce;
  dag.nodes[kStoreM].op = OpCode::min;
  dag.nodes[kC].load_kind = LoadKind::Row;
  const std::string again = print_text(dag);
  EXPECT_NE(again.find("  store m [column_reduce min] f32 <- %6\n"), std::string::npos) << again;
  EXPECT_NE(again.find("  %3 = load C [row] f16\n"), std::string::npos) << again;
}

std::string constant_line(double value) {
  Dag dag;
  dag.function_name = "k";
  dag.add(make_constant(value));
  const std::string text = print_text(dag);
  const std::size_t start = text.find("const ") + 6;
  return text.substr(start, text.find("  :") - start);
}

TEST(Printer, NumbersPrintShortestAndExact) {
  EXPECT_EQ(constant_line(2.0), "2.0");
  EXPECT_EQ(constant_line(-3.0), "-3.0");
  EXPECT_EQ(constant_line(0.0), "0.0");
  EXPECT_EQ(constant_line(-0.0), "-0.0");
  EXPECT_EQ(constant_line(0.1), "0.1");
  EXPECT_EQ(constant_line(0.044715), "0.044715");
  EXPECT_EQ(constant_line(100000.0), "100000.0");
  EXPECT_EQ(constant_line(123.456), "123.456");
  EXPECT_EQ(constant_line(-0.00125), "-0.00125");
  EXPECT_EQ(constant_line(0.0001), "0.0001");
  EXPECT_EQ(constant_line(0.00001), "1e-05");
  EXPECT_EQ(constant_line(1e15), "1000000000000000.0");
  EXPECT_EQ(constant_line(1e16), "1e+16");
  EXPECT_EQ(constant_line(1e20), "1e+20");
  EXPECT_EQ(constant_line(-1.5e300), "-1.5e+300");
  EXPECT_EQ(constant_line(2.5e-8), "2.5e-08");
  EXPECT_EQ(constant_line(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(constant_line(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(constant_line(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(constant_line(std::numeric_limits<double>::quiet_NaN()), "nan");
  // Values one ulp apart print differently, so they can never share a cache key.
  EXPECT_NE(constant_line(0.1), constant_line(std::nextafter(0.1, 1.0)));
}

TEST(Printer, OptionalArgumentsAndHeaderWithoutParams) {
  Dag dag;
  dag.function_name = "act";
  dag.outputs = {"D"};
  dag.add(make_node(NodeKind::AccFetch));
  dag.add(make_compute(OpCode::leaky_relu, {0}));
  dag.add(make_constant(0.2));
  dag.add(make_compute(OpCode::leaky_relu, {1, 2}, "D"));
  dag.add(make_store("D", 0, 3));
  const std::string expected =
      "def act(accum) -> D\n"
      "  %0 = accum  : f32\n"
      "  %1 = leaky_relu %0  : f32\n"
      "  %2 = const 0.2  : f32\n"
      "  %3 = leaky_relu %1, %2  : f32   # D\n"
      "  store D [unbound] f32 <- %3\n";
  EXPECT_EQ(print_text(dag), expected);
}

TEST(Printer, EqualDagsPrintEqualText) {
  Dag a = sample_typed();
  Dag b = sample_typed();
  for (Node& n : b.nodes) n.loc = {n.loc.line + 10, n.loc.column + 3};  // positions are not content
  EXPECT_EQ(print_text(a), print_text(b));
  EXPECT_EQ(print_dot(a), print_dot(b));
  // Every change of content changes the text.
  std::vector<Dag> changed(6, sample_typed());
  changed[0].nodes[kF].op = OpCode::sub;
  changed[1].nodes[kTwo].value = 3.0;
  changed[2].nodes[kC].dtype = DType::bf16;
  changed[3].nodes[kStoreM].op = OpCode::max;
  changed[4].nodes[kScaled].inputs = {kAlpha, kAccum};
  changed[5].nodes[kC].load_kind = LoadKind::Row;
  for (std::size_t i = 0; i < changed.size(); ++i) EXPECT_NE(print_text(changed[i]), print_text(a)) << "change " << i;
}

TEST(Printer, DotGolden) {
  Dag dag;
  dag.function_name = "f";
  dag.params = {"s"};
  dag.outputs = {"D"};
  dag.add(make_node(NodeKind::AccFetch));
  dag.add(make_load("s", 0));
  dag.nodes[1].load_kind = LoadKind::ScalarValue;
  dag.add(make_constant(0.5));
  dag.add(make_compute(OpCode::where, {0, 1, 2}, "D"));
  dag.add(make_store("D", 0, 3));
  dag.nodes[4].store_kind = StoreKind::Tile;
  dag.nodes[4].dtype = DType::f16;
  const std::string expected =
      "digraph \"f\" {\n"
      "  node [fontname=\"monospace\"];\n"
      "  n0 [shape=invhouse, label=\"%0 accum\\nf32\"];\n"
      "  n1 [shape=invhouse, label=\"%1 load s\\nscalar_value\\nf32\"];\n"
      "  n2 [shape=plaintext, label=\"%2 const 0.5\\nf32\"];\n"
      "  n3 [shape=ellipse, label=\"%3 where\\nf32\\nD\"];\n"
      "  n4 [shape=box, label=\"store D\\ntile\\nf16\"];\n"
      "  n0 -> n3;\n"
      "  n1 -> n3;\n"
      "  n2 -> n3;\n"
      "  n3 -> n4;\n"
      "}\n";
  EXPECT_EQ(print_dot(dag), expected);
}

TEST(Printer, DotShowsReductionsAndEscapesNames) {
  const std::string dot = print_dot(sample_typed());
  EXPECT_NE(dot.find("n10 [shape=box, label=\"store m\\nscalar_reduce amax\\nf32\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  n6 -> n10;\n"), std::string::npos);
  Dag odd;
  odd.function_name = "q\"uote";
  EXPECT_EQ(print_dot(odd).rfind("digraph \"q\\\"uote\" {\n", 0), 0u);
}

TEST(Printer, BrokenDagsStillPrint) {
  Dag dag = sample_raw();
  dag.nodes[kD].op = static_cast<OpCode>(200);
  EXPECT_NE(print_text(dag).find("%7 = <bad op> %6"), std::string::npos);
}

TEST(Names, EnumNames) {
  EXPECT_EQ(to_string(NodeKind::AccFetch), "acc_fetch");
  EXPECT_EQ(to_string(NodeKind::Constant), "constant");
  EXPECT_EQ(to_string(NodeKind::Load), "load");
  EXPECT_EQ(to_string(NodeKind::Compute), "compute");
  EXPECT_EQ(to_string(NodeKind::Store), "store");
  EXPECT_EQ(to_string(LoadKind::Unbound), "unbound");
  EXPECT_EQ(to_string(LoadKind::ScalarValue), "scalar_value");
  EXPECT_EQ(to_string(LoadKind::ScalarTensor), "scalar_tensor");
  EXPECT_EQ(to_string(LoadKind::Row), "row");
  EXPECT_EQ(to_string(LoadKind::Column), "column");
  EXPECT_EQ(to_string(LoadKind::Tile), "tile");
  EXPECT_EQ(to_string(StoreKind::Unbound), "unbound");
  EXPECT_EQ(to_string(StoreKind::Tile), "tile");
  EXPECT_EQ(to_string(StoreKind::RowReduce), "row_reduce");
  EXPECT_EQ(to_string(StoreKind::ColumnReduce), "column_reduce");
  EXPECT_EQ(to_string(StoreKind::ScalarReduce), "scalar_reduce");
  EXPECT_EQ(to_string(OpClass::cast), "cast");
  EXPECT_TRUE(is_reduce_store(StoreKind::RowReduce));
  EXPECT_TRUE(is_reduce_store(StoreKind::ScalarReduce));
  EXPECT_FALSE(is_reduce_store(StoreKind::Tile));
  EXPECT_FALSE(is_reduce_store(StoreKind::Unbound));
}

}  // namespace
}  // namespace epigemm::ir::testing

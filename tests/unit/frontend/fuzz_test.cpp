// Mutation fuzzing of the front end: valid epilogues are mutated (bytes
// flipped, inserted and deleted, tokens inserted and deleted, lines swapped,
// truncation, random bytes including NUL and non-ASCII, very deep nesting)
// and every result must either lower to a DAG that passes the raw verifier
// or throw epigemm::Error with a source position; nothing else.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "epigemm/error.hpp"
#include "frontend/parser.hpp"
#include "ir/verifier.hpp"

namespace epigemm::frontend {
namespace {

constexpr int kIterations = 20000;

const std::vector<std::string> kCorpus = {
    "def epi(accum, alpha, beta, C): F = (accum * alpha) + (C * beta); D = relu(F); return D, F",
    "def my_epilogue(accum, C, alpha, beta, extra_scalar):\n    Aux = (alpha * accum) + (beta * C)\n"
    "    D = extra_scalar * Aux\n    return D, Aux\n",
    "def relu_scale_return_acc(accum, alpha, beta, C, scale):\n    F = relu((accum * alpha) + (C * beta))\n"
    "    D = F * scale\n    return D, F, accum\n",
    "@cute.jit\ndef epi(accum: cute.Tensor, bias: float, s) -> tuple:\n    \"\"\"Doc string.\"\"\"\n"
    "    # comment\n    t = torch.nn.functional.leaky_relu(accum + bias, negative_slope=0.2)\n"
    "    D = clamp(t, min=-1.5e2, max=6.)  # trailing\n    A = amax(D)\n    return (D, A)\n",
    "def e(accum, a, b):\n    x = -a ** 2 ** -.5 + where(accum >= b, accum, b) / (a - \\\n        b)\n"
    "    D = to_e4m3(x * 448.0)\n    S = sum(x); M = max(x)\n    return D, S, M\n",
    "def e(accum, row, col):\n\tD = maximum(accum + row, col) != 0\n\treturn D\n",
    "def e(accum, x, y, z):\n"
    "    D = sigmoid(x) * tanh(y) - gelu_tanh(z) + hardswish(accum) + softplus(elu(accum, 1.0))\n"
    "    E = exp(log(sqrt(rsqrt(abs(sin(cos(tan(erf(accum)))))))))\n    return D, E\n",
};

const std::vector<std::string> kTokens = {
    "(",     ")",   "[",     "]",      ",",        ":",        ";",       "\n",       "    ",     "\t",
    "**",    "*",   "-",     "+",      "/",        "//",       "=",       "==",       "<",        "->",
    "def",   "return", "accum", "D",   "relu(",    "lambda",   "if",      "'",        "\"\"\"",   "\\\n",
    "#",     "@",   "1e",    ".5",     "5.",       "1e400",    "0x1",     "torch.",   "alpha=",   ".",
    "max(",  "sum", "\r\n",  "\f",     std::string(1, '\0'),   "\xff",    "\xc3\xa9", "True",     "*args",
    "),",    "(D, F)", "D = ", "x = x", "return D", "  ",      "\r",      "...",      "!=",       "+=",
};

class Mutator {
 public:
  explicit Mutator(unsigned seed) : rng_(seed) {}

  std::string mutate(std::string s) {
    const int rounds = 1 + pick(4);
    for (int r = 0; r < rounds; ++r) apply(s);
    return s;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::size_t position(const std::string& s) { return static_cast<std::size_t>(pick(static_cast<int>(s.size()) + 1)); }
  char random_byte() { return static_cast<char>(pick(256)); }

  void apply(std::string& s) {
    switch (pick(10)) {
      case 0:  // flip a byte
        if (!s.empty()) s[position(s) % s.size()] = random_byte();
        break;
      case 1:  // insert random bytes
        s.insert(position(s), std::string(static_cast<std::size_t>(1 + pick(3)), random_byte()));
        break;
      case 2: {  // delete a range
        std::size_t at = position(s);
        s.erase(at, static_cast<std::size_t>(1 + pick(8)));
        break;
      }
      case 3:  // truncate
        s.resize(position(s));
        break;
      case 4:
      case 5:  // insert a token
        s.insert(position(s), kTokens[static_cast<std::size_t>(pick(static_cast<int>(kTokens.size())))]);
        break;
      case 6: {  // delete one occurrence of a token
        const std::string& t = kTokens[static_cast<std::size_t>(pick(static_cast<int>(kTokens.size())))];
        std::size_t at = s.find(t, position(s) % (s.size() + 1));
        if (at != std::string::npos) s.erase(at, t.size());
        break;
      }
      case 7: {  // duplicate a slice
        std::size_t at = position(s);
        s.insert(position(s), s.substr(at, static_cast<std::size_t>(1 + pick(20))));
        break;
      }
      case 8: {  // swap two lines
        std::vector<std::string> lines;
        std::size_t start = 0;
        for (std::size_t i = 0; i <= s.size(); ++i) {
          if (i == s.size() || s[i] == '\n') {
            lines.push_back(s.substr(start, i - start));
            start = i + 1;
          }
        }
        std::swap(lines[static_cast<std::size_t>(pick(static_cast<int>(lines.size())))],
                  lines[static_cast<std::size_t>(pick(static_cast<int>(lines.size())))]);
        s.clear();
        for (std::size_t i = 0; i < lines.size(); ++i) s += (i ? "\n" : "") + lines[i];
        break;
      }
      default: {  // random bytes, sometimes the whole input
        std::string noise(static_cast<std::size_t>(pick(40)), '\0');
        for (char& c : noise) c = random_byte();
        if (pick(4) == 0) {
          s = noise;
        } else {
          s.insert(position(s), noise);
        }
        break;
      }
    }
  }

  std::mt19937 rng_;
};

// Parses and lowers `source`; only a verified DAG or a positioned Error may
// come out (any other exception fails the test through gtest).
::testing::AssertionResult survives(const std::string& source, int& accepted) {
  try {
    const ast::Function f = parse(source);
    (void)print_ast(f);
    const ir::Dag dag = lower(f);
    ir::verify(dag, ir::Stage::raw);
    ++accepted;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal)
      return ::testing::AssertionFailure() << "internal error: " << e.what() << "\nsource: " << source;
    if (e.line() <= 0 || e.column() <= 0)
      return ::testing::AssertionFailure() << "error without a position: " << e.what() << "\nsource: " << source;
  }
  return ::testing::AssertionSuccess();
}

TEST(Fuzz, MutatedEpiloguesGiveADagOrAnError) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Mutator mutator(seed);
  std::mt19937 pick(seed ^ 0x5eedu);
  int accepted = 0;
  for (const std::string& s : kCorpus) {
    int before = accepted;
    ASSERT_TRUE(survives(s, accepted));
    ASSERT_EQ(accepted, before + 1) << "corpus entry does not parse:\n" << s;
  }
  for (int i = 0; i < kIterations; ++i) {
    const std::string& base = kCorpus[pick() % kCorpus.size()];
    const std::string source = mutator.mutate(base);
    ASSERT_TRUE(survives(source, accepted)) << "iteration " << i;
  }
  RecordProperty("accepted", accepted);
  // Some mutations leave the program valid (a comment, a space); most do not.
  EXPECT_GT(accepted, static_cast<int>(kCorpus.size()));
  EXPECT_LT(accepted, kIterations);
}

TEST(Fuzz, HostileShapes) {
  const std::string head = "def e(accum): D = ";
  const std::string tail = "; return D";
  struct Case {
    std::string source;
    bool valid;
  };
  const Case cases[] = {
      {head + std::string(100000, '(') + tail, false},
      {head + std::string(100000, '(') + "accum" + std::string(100000, ')') + tail, false},
      {head + std::string(100000, '-') + "accum" + tail, false},
      {std::string(100000, '['), false},
      {std::string(100000, ')'), false},
      {"def e(accum" + std::string(100000, ',') + "): return accum", false},
      {"def e(accum" + std::string(100000, ':') + "): return accum", false},
      {head + "relu(" + std::string(50000, ' ') + "accum)" + tail, true},
      {std::string(100000, '\n') + "def e(accum): D = accum; return D", true},
      {"def e(accum):\n" + std::string(100000, ' ') + "D = accum\n    return D\n", false},
      {head + std::string(100000, 'x') + tail, false},
      {head + "1" + std::string(100000, '0') + tail, false},         // out of range
      {head + "0." + std::string(100000, '0') + "1" + tail, true},   // rounds to 0.0
      {"\"\"\"" + std::string(100000, '"'), false},
      {std::string(100000, '\0'), false},
      {std::string(100000, '\xff'), false},
  };
  for (const Case& c : cases) {
    int accepted = 0;
    EXPECT_TRUE(survives(c.source, accepted)) << c.source.substr(0, 40);
    EXPECT_EQ(accepted, c.valid ? 1 : 0) << c.source.substr(0, 40);
  }
  std::string many = "def e(accum):\n";
  for (int i = 0; i < 20000; ++i) many += "    v" + std::to_string(i) + " = accum * " + std::to_string(i) + "\n";
  many += "    D = v19999\n    return D\n";
  int accepted = 0;
  EXPECT_TRUE(survives(many, accepted));
  EXPECT_EQ(accepted, 1);
}

}  // namespace
}  // namespace epigemm::frontend

// NVRTC compile driver: an RAII program handle, option assembly (target and
// CUDA include paths), lowered-name lookup, and dumping of failing sources
// so the error message can point at a file the user can recompile.
#include "runtime/nvrtc.hpp"

#include <nvrtc.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>

#include "epigemm/error.hpp"
#include "support/env.hpp"
#include "support/file_io.hpp"
#include "support/hash.hpp"
#include "support/log.hpp"

#ifndef EPIGEMM_CUDA_INCLUDE_DIR
#define EPIGEMM_CUDA_INCLUDE_DIR ""
#endif

namespace epigemm::runtime {
namespace {

// Owns an nvrtcProgram.
class NvrtcProgram {
 public:
  explicit NvrtcProgram(const CompileRequest& request) {
    std::vector<const char*> contents, names;
    std::vector<std::string> storage;  // NUL-terminated copies of the views
    storage.reserve(request.headers.size() * 2 + 1);
    for (const HeaderFile& h : request.headers) {
      storage.emplace_back(h.second);
      contents.push_back(storage.back().c_str());
      storage.emplace_back(h.first);
      names.push_back(storage.back().c_str());
    }
    const std::string source(request.source);
    check(nvrtcCreateProgram(&program_, source.c_str(), request.file_name.c_str(), static_cast<int>(contents.size()),
                             contents.data(), names.data()),
          "creating an NVRTC program");
  }
  ~NvrtcProgram() {
    if (program_ != nullptr) nvrtcDestroyProgram(&program_);
  }
  NvrtcProgram(const NvrtcProgram&) = delete;
  NvrtcProgram& operator=(const NvrtcProgram&) = delete;

  nvrtcProgram get() const { return program_; }

  std::string log() const {
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(program_, &size) != NVRTC_SUCCESS || size <= 1) return {};
    std::string text(size, '\0');
    if (nvrtcGetProgramLog(program_, text.data()) != NVRTC_SUCCESS) return {};
    text.resize(size - 1);  // drop the terminating NUL
    return text;
  }

  static void check(nvrtcResult result, const std::string& what) {
    if (result != NVRTC_SUCCESS) {
      throw Error(ErrorKind::Compile, std::string(nvrtcGetErrorString(result)) + " while " + what);
    }
  }

 private:
  nvrtcProgram program_ = nullptr;
};

std::string get_ptx(nvrtcProgram program) {
  std::size_t size = 0;
  NvrtcProgram::check(nvrtcGetPTXSize(program, &size), "reading the PTX size");
  std::string ptx(size, '\0');
  NvrtcProgram::check(nvrtcGetPTX(program, ptx.data()), "reading the PTX");
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

std::string get_cubin(nvrtcProgram program) {
  std::size_t size = 0;
  NvrtcProgram::check(nvrtcGetCUBINSize(program, &size), "reading the cubin size");
  std::string cubin(size, '\0');
  NvrtcProgram::check(nvrtcGetCUBIN(program, cubin.data()), "reading the cubin");
  return cubin;
}

// Where sources that fail to compile go: EPIGEMM_DUMP_DIR, else one private
// temporary directory per process.
std::filesystem::path failure_dump_dir() {
  if (auto dir = env::dump_dir()) {
    ensure_directory(*dir);
    return *dir;
  }
  static std::mutex mutex;
  static std::optional<std::filesystem::path> temp;
  std::lock_guard<std::mutex> lock(mutex);
  if (!temp) temp = make_temp_directory("epigemm-failed-");
  return *temp;
}

// Writes the failing source, its log and its headers; returns the source path
// (or a note saying why nothing could be written).
std::string dump_failure(const CompileRequest& request, const std::string& log) {
  try {
    Hasher h;
    h.field(request.source).field(request.arch);
    for (const auto& o : request.options) h.field(o);
    const std::filesystem::path dir = failure_dump_dir();
    const std::string stem = std::filesystem::path(request.file_name).stem().string() + "-" + to_hex(h.digest64());
    const std::filesystem::path source_path = dir / (stem + ".cu");
    write_file_atomic(source_path, request.source);
    write_file_atomic(dir / (stem + ".log"), log);
    if (!request.headers.empty()) {
      const std::filesystem::path include_dir = dir / (stem + ".include");
      for (const HeaderFile& header : request.headers) {
        const std::filesystem::path name = std::filesystem::path(header.first).lexically_normal();
        if (name.empty() || name.is_absolute() || *name.begin() == "..") continue;  // stay inside include_dir
        const std::filesystem::path path = include_dir / name;
        ensure_directory(path.parent_path());
        write_file_atomic(path, header.second);
      }
    }
    return source_path.string();
  } catch (const std::exception& e) {
    return std::string("(could not dump the source: ") + e.what() + ")";
  }
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

int nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return 0;
  return major * 1000 + minor * 10;
}

std::string arch_name(int sm, bool arch_specific) {
  // Only these generations have "a" variants with instructions (wgmma,
  // setmaxnreg, tcgen05) that the portable target lacks.
  const bool has_a = sm == 90 || sm == 100 || sm == 101 || sm == 103 || sm == 110 || sm == 120 || sm == 121;
  return "sm_" + std::to_string(sm) + (arch_specific && has_a ? "a" : "");
}

std::vector<std::string> cuda_include_options() {
  std::vector<std::filesystem::path> candidates;
  // The build-time value may be a CMake list ("a;b").
  std::string built = EPIGEMM_CUDA_INCLUDE_DIR;
  for (std::size_t start = 0; start <= built.size();) {
    std::size_t end = built.find(';', start);
    if (end == std::string::npos) end = built.size();
    if (end > start) candidates.emplace_back(built.substr(start, end - start));
    start = end + 1;
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto root = env::get(var)) candidates.emplace_back(std::filesystem::path(*root) / "include");
  }
  candidates.emplace_back("/usr/local/cuda/include");
  std::vector<std::string> options;
  std::error_code ec;
  for (const auto& dir : candidates) {
    if (!std::filesystem::exists(dir / "cuda_fp16.h", ec)) continue;
    options.push_back("-I" + dir.string());
    if (std::filesystem::is_directory(dir / "cccl", ec)) options.push_back("-I" + (dir / "cccl").string());
    break;
  }
  return options;
}

std::vector<std::string> implicit_options() {
  std::vector<std::string> options = cuda_include_options();
  if (env::line_info()) options.push_back("-lineinfo");
  return options;
}

CompileResult nvrtc_compile(const CompileRequest& request) {
  NvrtcProgram program(request);
  for (const auto& expression : request.name_expressions) {
    NvrtcProgram::check(nvrtcAddNameExpression(program.get(), expression.c_str()),
                        "adding kernel name expression '" + expression + "'");
  }
  std::vector<std::string> options;
  options.push_back("--gpu-architecture=" + request.arch);
  for (auto& o : implicit_options()) options.push_back(std::move(o));
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> option_ptrs;
  for (const auto& o : options) option_ptrs.push_back(o.c_str());

  const auto start = std::chrono::steady_clock::now();
  const nvrtcResult status =
      nvrtcCompileProgram(program.get(), static_cast<int>(option_ptrs.size()), option_ptrs.data());
  CompileResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.log = program.log();
  if (status != NVRTC_SUCCESS) {
    const std::string where = dump_failure(request, result.log);
    throw Error(ErrorKind::Compile, "NVRTC failed to compile " + request.file_name + " for " + request.arch + " (" +
                                        nvrtcGetErrorString(status) + "); source dumped to " + where +
                                        "\noptions: " + join(options) + "\n" + result.log);
  }
  const bool real_target = request.arch.rfind("sm_", 0) == 0;
  if (real_target) result.cubin = get_cubin(program.get());
  if (request.want_ptx || !real_target) result.ptx = get_ptx(program.get());
  for (const auto& expression : request.name_expressions) {
    const char* lowered = nullptr;
    NvrtcProgram::check(nvrtcGetLoweredName(program.get(), expression.c_str(), &lowered),
                        "finding the kernel named by '" + expression + "'");
    result.lowered_names.emplace_back(lowered);
  }
  if (!result.log.empty()) log(LogLevel::debug, "NVRTC log for " + request.file_name + ":\n" + result.log);
  log(LogLevel::info, "compiled " + request.file_name + " for " + request.arch + " in " +
                          std::to_string(static_cast<int>(result.seconds * 1000)) + " ms");
  return result;
}

}  // namespace epigemm::runtime

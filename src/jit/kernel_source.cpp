#include "jit/kernel_source.hpp"

#include "jit/cache_key.hpp"
#include "jit/file_io.hpp"
#include "jit/kernel_scan.hpp"
#include "tessel/error.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

namespace tessel::jit {

PreparedSource prepare_kernel_source(const BuildRequest& request, const std::string& cache_root,
                                     const std::string& api_include_dir) {
  if (!request.source_path.empty()) {
    std::string path = absolute_source_path(request.source_path);
    std::optional<std::string> content = read_file(path);
    if (!content)
      throw ProgramError("kernel source " + request.source_path + " cannot be read: " + std::strerror(errno));
    const std::string own_text = kernel_own_text(*content, std::filesystem::path(path).parent_path().string(),
                                                 request.include_dirs, api_include_dir);
    return {request.source_path, path, path, {}, content_hash(*content), request_flags(request, own_text)};
  }
  std::string dir = cache_root + "/sources/" + short_hash(request.source_text);
  std::string file_name = text_source_file_name(request);
  std::string path = dir + "/" + file_name;
  if (read_file(path) != request.source_text) {
    make_directories(std::filesystem::path(path).parent_path().string());
    write_file_atomic(path, request.source_text);
  }
  const std::string own_text = kernel_own_text(request.source_text, std::filesystem::path(path).parent_path().string(),
                                               request.include_dirs, api_include_dir);
  return {
      source_name(request), path, file_name, dir, content_hash(request.source_text), request_flags(request, own_text)};
}

} // namespace tessel::jit

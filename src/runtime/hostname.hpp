#pragma once
// The name of the machine this process runs on.
#include <string>

namespace wave3d {

// gethostname(); "unknown-host" when the system will not say.
std::string hostname();
// The first label of hostname() ("node12" for "node12.cluster.example"), for short file names.
std::string short_hostname();

}  // namespace wave3d

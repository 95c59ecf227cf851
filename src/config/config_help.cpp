#include "config/config_help.hpp"

#include <fmt/format.h>

#include <iterator>

#include "config/config_resolve.hpp"
#include "config/config_schema.hpp"

namespace wave3d {

std::string config_help_text() {
  std::string text =
      "Configuration keys. Set them in a TOML file ([section], then name = value) or on the command line\n"
      "with --set section.name=value; a list may drop its brackets (--set grid.n=256,256,128) and a word\n"
      "its quotes (--set stencil.precision=double). Without a file the built-in configs/default.toml is used;\n"
      "keys a file leaves out take the defaults below.\n";
  auto out = std::back_inserter(text);
  std::string_view section;
  for (const KeySpec& spec : config_schema()) {
    const std::string_view this_section = spec.key.substr(0, spec.key.find('.'));
    if (this_section != section) {
      section = this_section;
      fmt::format_to(out, "\n[{}]\n", section);
    }
    const std::string default_text = spec.default_toml.empty() ? "derived, see below" : std::string(spec.default_toml);
    fmt::format_to(out, "  {}  ({}; default {}; allowed: {})\n      {}\n", spec.key, kind_text(spec.kind), default_text,
                   allowed_text(spec), spec.doc);
  }
  text += "\nRules between keys:\n";
  for (const CrossKeyRule& rule : cross_key_rules()) fmt::format_to(out, "  {}\n", rule.summary);
  return text;
}

}  // namespace wave3d

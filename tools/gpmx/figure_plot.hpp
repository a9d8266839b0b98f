#pragma once
// Draws a figure's JSON (gpmx sim figure) as a PNG bar chart in the paper's
// style, with python3 and matplotlib (scripts/install-deps.sh installs
// them). Returns a line saying where the chart is, or why there is none.
#include <filesystem>
#include <string>

namespace gpmx::cli {

std::string plot_figure(const std::filesystem::path& json, const std::filesystem::path& png);

}  // namespace gpmx::cli

#pragma once
// The text of tools/report/gpmx_report.py, built into the program
// (report_script.cpp is generated from it by tools/gpmx/CMakeLists.txt).
#include <string_view>

namespace gpmx::cli {

std::string_view report_script();

}  // namespace gpmx::cli

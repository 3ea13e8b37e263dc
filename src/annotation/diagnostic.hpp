// Messages about an annotation, located by column and shown with a caret under the culprit.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lightning::annotation {

/// Whether a diagnostic stops the annotation from being used.
enum class Severity { kWarning, kError };

/// A message about one place of an annotation. Warnings are returned as values (this module
/// does no I/O); errors are thrown as Error(kAnnotation) with format()'s text.
struct Diagnostic {
  Severity severity = Severity::kError;
  size_t offset = 0;  ///< byte offset of the culprit in the annotation text
  std::string message;

  /// "annotation:LINE:COL: [warning: ]message", then the line of `text` and a caret line.
  std::string format(std::string_view text) const;
};

/// The full text of an error at byte `offset` of `text`:
/// "annotation:1:24: unknown array 'C' (kernel has: A, B)\n<line>\n<spaces>^".
/// Columns are 1-based and count bytes; the caret line repeats the tabs of the source line
/// so that the caret stays aligned in a terminal.
std::string format_diagnostic(std::string_view text, size_t offset, std::string_view message);

/// "LINE:COL" (1-based) of byte `offset` in `text`, for messages that refer to another place.
std::string location_of(std::string_view text, size_t offset);

/// Throws Error(ErrorKind::kAnnotation, format_diagnostic(text, offset, message)).
[[noreturn]] void throw_annotation_error(std::string_view text, size_t offset,
                                         std::string_view message);

}  // namespace lightning::annotation

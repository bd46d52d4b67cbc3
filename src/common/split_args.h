// Splitting a line into arguments with the quoting rules of inline commands and config files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vireo {

// "double quotes" with \n \r \t \b \a \xHH escapes, 'single quotes' with \' only; a closing
// quote must end the argument. Unescaped bytes go to *storage (cleared and reserved here), and
// *args gets views into it. Returns false on unbalanced quotes.
bool SplitQuotedArgs(std::string_view line, std::string* storage,
                     std::vector<std::string_view>* args);

// Convenience form returning owned strings.
bool SplitQuotedArgs(std::string_view line, std::vector<std::string>* args);

// Quotes s so SplitQuotedArgs reads it back as one argument (CONFIG REWRITE, MONITOR).
std::string QuoteArg(std::string_view s);

}  // namespace vireo

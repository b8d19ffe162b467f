// json_probe: how fast can simdjson read the benchmark's JSON Lines? (single thread)
//
//   c++ -O2 -std=c++17 bench/json_probe.cpp -lsimdjson -o .bench/json_probe
//   .bench/json_probe FILE [--repeat 3] [--block-mb 64]
//
// Reads FILE in large blocks (each followed by SIMDJSON_PADDING spare bytes, so no line is copied)
// and, line by line, makes two passes:
//   dom       simdjson DOM parse of the whole line (full validation, builds the tree)
//   strict    the DOM parse plus a walk of every object rejecting a key given twice: as strict as
//             iap-audit's own scanner (simdjson's DOM accepts duplicate keys; iap-audit refuses them)
//   ondemand  simdjson On-Demand extraction of the fields iap-audit needs from verify.jsonl:
//             request_id, received_at, response.status (number or string), response.environment,
//             response.receipt.bundle_id, receipt_type, and for each receipt.in_app item
//             transaction_id, original_transaction_id, product_id, purchase_date_ms,
//             cancellation_date_ms, web_order_line_item_id, in_app_ownership_type
//             (the *_ms strings are converted to integers, as the product must).
// Both passes run --repeat times, alternately. Prints one JSON object: for each pass, of the
// repetition with the median parse-only time, the wall seconds (reading included), the parse-only
// seconds (and their min/max over the repetitions), MB/s over parse-only time (MB = 10^6 bytes),
// lines, lines that failed, and for ondemand what it extracted (status-0 responses, in_app
// items), so the numbers can be checked.
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace simdjson;
using Clock = std::chrono::steady_clock;
#define PROBE_STRING_(x) #x
#define PROBE_STRING(x) PROBE_STRING_(x)

namespace {

struct PassResult {
  double wallSeconds = 0;   // whole pass, reading the file included
  double parseSeconds = 0;  // only the parse / extraction calls
  uint64_t lines = 0;
  uint64_t failedLines = 0;
  uint64_t status0 = 0;      // ondemand: responses with status 0
  uint64_t inAppItems = 0;   // ondemand: in_app items read
  uint64_t checksum = 0;     // keeps the compiler from dropping the work
};

uint64_t parseDigits(std::string_view text) {
  uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

uint64_t hashText(std::string_view text) { return text.size() * 131 + (text.empty() ? 0 : uint8_t(text[0])); }

// One in_app item: the seven fields iap-audit keeps.
error_code extractItem(ondemand::object item, PassResult& result) {
  for (auto fieldResult : item) {
    ondemand::field field;
    SIMDJSON_TRY(std::move(fieldResult).get(field));
    std::string_view key;
    SIMDJSON_TRY(field.unescaped_key().get(key));
    std::string_view text;
    if (key == "transaction_id" || key == "original_transaction_id" || key == "product_id" ||
        key == "web_order_line_item_id" || key == "in_app_ownership_type") {
      SIMDJSON_TRY(field.value().get_string().get(text));
      result.checksum += hashText(text);
    } else if (key == "purchase_date_ms" || key == "cancellation_date_ms") {
      SIMDJSON_TRY(field.value().get_string().get(text));
      result.checksum += parseDigits(text);
    }
  }
  result.inAppItems++;
  return SUCCESS;
}

error_code extractReceipt(ondemand::object receipt, PassResult& result) {
  for (auto fieldResult : receipt) {
    ondemand::field field;
    SIMDJSON_TRY(std::move(fieldResult).get(field));
    std::string_view key;
    SIMDJSON_TRY(field.unescaped_key().get(key));
    if (key == "bundle_id" || key == "receipt_type") {
      std::string_view text;
      SIMDJSON_TRY(field.value().get_string().get(text));
      result.checksum += hashText(text);
    } else if (key == "in_app") {
      ondemand::array items;
      SIMDJSON_TRY(field.value().get_array().get(items));
      for (auto itemResult : items) {
        ondemand::object item;
        SIMDJSON_TRY(itemResult.get_object().get(item));
        SIMDJSON_TRY(extractItem(item, result));
      }
    }
  }
  return SUCCESS;
}

// Apple sends status as a number, sometimes as a string.
error_code readStatus(ondemand::value value, int64_t& status) {
  ondemand::json_type type;
  SIMDJSON_TRY(value.type().get(type));
  if (type == ondemand::json_type::string) {
    std::string_view text;
    SIMDJSON_TRY(value.get_string().get(text));
    status = int64_t(parseDigits(text));
    return SUCCESS;
  }
  return value.get_int64().get(status);
}

error_code extractResponse(ondemand::object response, PassResult& result) {
  int64_t status = -1;
  for (auto fieldResult : response) {
    ondemand::field field;
    SIMDJSON_TRY(std::move(fieldResult).get(field));
    std::string_view key;
    SIMDJSON_TRY(field.unescaped_key().get(key));
    if (key == "status") {
      SIMDJSON_TRY(readStatus(field.value(), status));
    } else if (key == "environment") {
      std::string_view text;
      SIMDJSON_TRY(field.value().get_string().get(text));
      result.checksum += hashText(text);
    } else if (key == "receipt") {
      ondemand::object receipt;
      SIMDJSON_TRY(field.value().get_object().get(receipt));
      SIMDJSON_TRY(extractReceipt(receipt, result));
    }
  }
  if (status == 0) result.status0++;
  return SUCCESS;
}

// One wrapped verify line: {"request_id", "received_at", "response": {...}}.
error_code extractLine(ondemand::parser& parser, padded_string_view line, PassResult& result) {
  ondemand::document document;
  SIMDJSON_TRY(parser.iterate(line).get(document));
  ondemand::object top;
  SIMDJSON_TRY(document.get_object().get(top));
  for (auto fieldResult : top) {
    ondemand::field field;
    SIMDJSON_TRY(std::move(fieldResult).get(field));
    std::string_view key;
    SIMDJSON_TRY(field.unescaped_key().get(key));
    if (key == "request_id" || key == "received_at") {
      std::string_view text;
      SIMDJSON_TRY(field.value().get_string().get(text));
      result.checksum += hashText(text);
    } else if (key == "response") {
      ondemand::object response;
      SIMDJSON_TRY(field.value().get_object().get(response));
      SIMDJSON_TRY(extractResponse(response, result));
    }
  }
  return SUCCESS;
}

// True when no object in `element` has a key twice (what iap-audit's readers require).
bool noDuplicateKeys(dom::element element) {
  switch (element.type()) {
    case dom::element_type::OBJECT: {
      dom::object object;
      if (element.get(object) != SUCCESS) return false;
      std::vector<std::string_view> keys;
      for (dom::key_value_pair field : object) {
        for (std::string_view seen : keys) {
          if (seen == field.key) return false;
        }
        keys.push_back(field.key);
        if (!noDuplicateKeys(field.value)) return false;
      }
      return true;
    }
    case dom::element_type::ARRAY: {
      dom::array array;
      if (element.get(array) != SUCCESS) return false;
      for (dom::element child : array) {
        if (!noDuplicateKeys(child)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

// Reads the file in blocks of blockBytes and calls handle(line, capacity) for every non-empty
// line; capacity counts the readable bytes from the line's start (padding included).
template <typename Handle>
bool forEachLine(const char* path, size_t blockBytes, PassResult& result, Handle handle) {
  FILE* file = std::fopen(path, "rb");
  if (!file) {
    std::perror(path);
    return false;
  }
  std::vector<char> buffer(blockBytes + SIMDJSON_PADDING);
  size_t carried = 0;  // bytes of an unfinished line moved to the buffer's start
  auto start = Clock::now();
  for (;;) {
    size_t got = std::fread(buffer.data() + carried, 1, blockBytes - carried, file);
    size_t filled = carried + got;
    bool atEnd = got == 0;
    if (filled == 0) break;
    char* data = buffer.data();
    std::memset(data + filled, 0, SIMDJSON_PADDING);
    size_t position = 0;
    auto parseStart = Clock::now();
    for (;;) {
      char* newline = static_cast<char*>(std::memchr(data + position, '\n', filled - position));
      if (!newline && !atEnd) break;  // unfinished line: carry it to the next block
      size_t end = newline ? size_t(newline - data) : filled;
      if (end > position) {
        result.lines++;
        if (!handle(data + position, end - position, buffer.size() - position)) result.failedLines++;
      }
      position = newline ? end + 1 : filled;
      if (position >= filled) break;
    }
    result.parseSeconds += std::chrono::duration<double>(Clock::now() - parseStart).count();
    carried = filled - position;
    if (atEnd) break;
    if (carried == blockBytes) {
      std::fprintf(stderr, "json_probe: a line longer than the block (%zu bytes)\n", blockBytes);
      std::fclose(file);
      return false;
    }
    std::memmove(data, data + position, carried);
  }
  result.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fclose(file);
  return true;
}

// Prints one pass as JSON: the repetition with the median parse-only time, and the range.
void printPass(const char* name, std::vector<PassResult> runs, uint64_t bytes, bool last) {
  std::sort(runs.begin(), runs.end(),
            [](const PassResult& a, const PassResult& b) { return a.parseSeconds < b.parseSeconds; });
  const PassResult& r = runs[runs.size() / 2];
  double mbPerSecond = r.parseSeconds > 0 ? bytes / 1e6 / r.parseSeconds : 0;
  std::printf(
      "\"%s\":{\"wall_s\":%.3f,\"parse_s\":%.3f,\"parse_s_min\":%.3f,\"parse_s_max\":%.3f,\"mb_per_s\":%.1f,"
      "\"lines\":%llu,\"failed_lines\":%llu,\"status0\":%llu,\"in_app_items\":%llu}%s",
      name, r.wallSeconds, r.parseSeconds, runs.front().parseSeconds, runs.back().parseSeconds, mbPerSecond,
      (unsigned long long)r.lines, (unsigned long long)r.failedLines, (unsigned long long)r.status0,
      (unsigned long long)r.inAppItems, last ? "" : ",");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: json_probe FILE [--repeat 3] [--block-mb 64]\n");
    return 64;
  }
  const char* path = argv[1];
  int repeat = 3;
  size_t blockBytes = size_t(64) << 20;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string option = argv[i];
    if (option == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (option == "--block-mb") blockBytes = size_t(std::max(1, std::atoi(argv[i + 1]))) << 20;
  }

  dom::parser domParser;
  ondemand::parser onDemandParser;
  std::vector<PassResult> domRuns, strictRuns, onDemandRuns;
  uint64_t checksum = 0;
  for (int i = 0; i < repeat; i++) {  // alternate the two passes, like the benchmark's pairs
    PassResult dom;
    bool ok = forEachLine(path, blockBytes, dom, [&](const char* line, size_t length, size_t) {
      // the block always has SIMDJSON_PADDING readable bytes after any line: parse in place
      dom::element root;
      if (domParser.parse(line, length, false).get(root) != SUCCESS) return false;
      dom.checksum += uint64_t(root.type());
      return true;
    });
    PassResult strict;
    ok = ok && forEachLine(path, blockBytes, strict, [&](const char* line, size_t length, size_t) {
      dom::element root;
      if (domParser.parse(line, length, false).get(root) != SUCCESS) return false;
      return noDuplicateKeys(root);
    });
    PassResult onDemand;
    ok = ok && forEachLine(path, blockBytes, onDemand, [&](const char* line, size_t length, size_t capacity) {
      return extractLine(onDemandParser, padded_string_view(line, length, capacity), onDemand) == SUCCESS;
    });
    if (!ok) return 1;
    checksum += dom.checksum + onDemand.checksum;
    domRuns.push_back(dom);
    strictRuns.push_back(strict);
    onDemandRuns.push_back(onDemand);
  }

  uint64_t bytes = 0;
  if (FILE* file = std::fopen(path, "rb")) {
    std::fseek(file, 0, SEEK_END);
    bytes = uint64_t(std::ftell(file));
    std::fclose(file);
  }
  // Stage 1 (the SIMD scan) is dispatched at run time ("implementation"); On-Demand's own code is
  // compiled for the builtin target, which without -march flags is "fallback".
  std::printf("{\"file\":\"%s\",\"bytes\":%llu,\"repeat\":%d,\"simdjson\":\"%s\",\"implementation\":\"%s\",\"ondemand_builtin\":\"%s\","
              "\"checksum\":%llu,",
              path, (unsigned long long)bytes, repeat, PROBE_STRING(SIMDJSON_VERSION), simdjson::get_active_implementation()->name().c_str(),
              PROBE_STRING(SIMDJSON_BUILTIN_IMPLEMENTATION), (unsigned long long)checksum);
  printPass("dom", domRuns, bytes, false);
  printPass("strict", strictRuns, bytes, false);
  printPass("ondemand", onDemandRuns, bytes, true);
  std::printf("}\n");
  return 0;
}

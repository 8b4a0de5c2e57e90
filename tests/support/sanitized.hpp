// Whether this test binary (and so the build it tests) runs under AddressSanitizer, which multiplies
// time and memory: bounds on either take it into account.
#pragma once

namespace dpusim::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

} // namespace dpusim::testing

// Shim for <assert.h> (and <cassert>, which includes it) in kernel modules: a failed assert in
// device code ends the launch with a LaunchError naming the kernel, as a device-side assert
// does, instead of abort()ing the Python process. No include guard: NDEBUG is re-read each
// time, as the standard requires.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#ifdef __cplusplus
extern "C"
#endif
void tclab_rt_assert_fail(const char* expr, const char* file, unsigned line, const char* func)
    __attribute__((noreturn));
#define assert(e) ((e) ? (void)0 : tclab_rt_assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif

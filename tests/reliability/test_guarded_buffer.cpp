// tests/common/guarded_buffer.hpp: the user bytes are usable, and one byte past either guarded
// edge faults. Kernel tests rely on this to catch over-runs of JIT code, which no sanitizer
// sees, so the faults themselves are what is tested here (death tests).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <unistd.h>

#include "common/guarded_buffer.hpp"

namespace {

using qtest::guard_side;
using qtest::guarded_buffer;

// Volatile so that the compiler keeps the out-of-bounds access the test is about.
void touch_write(void *p) { *static_cast<volatile unsigned char *>(p) = 1; }
unsigned char touch_read(const void *p) { return *static_cast<const volatile unsigned char *>(p); }

// QTEST_GUARD_SLACK (an emulator's mode, guarded_buffer.hpp) moves the end guard away from
// the user bytes: the tests of that edge then have nothing to check.
bool end_guard_moved() {
    const char *v = std::getenv("QTEST_GUARD_SLACK");
    return v && *v && std::strtoul(v, nullptr, 10) > 0;
}
#define SKIP_IF_END_GUARD_MOVED() \
    if (end_guard_moved()) GTEST_SKIP() << "QTEST_GUARD_SLACK moves the end guard"

class GuardedBufferDeath : public ::testing::Test {
protected:
    void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST(GuardedBuffer, EveryUserByteIsReadableAndWritable) {
    for (guard_side side : {guard_side::end, guard_side::start}) {
        for (size_t n : {1u, 7u, 4095u, 4096u, 4097u, 10000u}) {
            guarded_buffer b(n, side);
            ASSERT_NE(b.data(), nullptr);
            ASSERT_EQ(b.size(), n);
            auto *p = b.as<unsigned char>();
            for (size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(i * 7 + 3);
            for (size_t i = 0; i < n; ++i)
                ASSERT_EQ(p[i], static_cast<unsigned char>(i * 7 + 3)) << "byte " << i;
        }
    }
}

TEST(GuardedBuffer, EndSideIsFlushAgainstAPageBoundary) {
    SKIP_IF_END_GUARD_MOVED();
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    for (size_t n : {1u, 6u, 64u, 4096u, 5000u}) {
        guarded_buffer b(n);
        const uintptr_t end = reinterpret_cast<uintptr_t>(b.as<unsigned char>() + n);
        EXPECT_EQ(end % page, 0u) << n << " bytes";
    }
    // The end-flush pointer is as misaligned as the size makes it: what unaligned-load tests
    // want. 6 bytes before a page boundary is 2 mod 8.
    guarded_buffer b(6);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 8, 2u);
}

TEST(GuardedBuffer, EmulatorSlackLeavesThatManyBytesBeforeTheEndGuard) {
    // QTEST_GUARD_SLACK (guarded_buffer.hpp): ctest runs this once more with it set
    // (guarded_buffer.emulator_slack); without it there is nothing to check.
    const char *v = std::getenv("QTEST_GUARD_SLACK");
    if (!v || !*v) GTEST_SKIP() << "QTEST_GUARD_SLACK is not set";
    const size_t gap = static_cast<size_t>(std::strtoul(v, nullptr, 10));
    ASSERT_GT(gap, 0u);
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    for (size_t n : {size_t(1), size_t(6), size_t(64), 4096 - gap, size_t(4096), size_t(5000)}) {
        guarded_buffer b(n);
        auto *p = b.as<unsigned char>();
        for (size_t i = 0; i < n + gap; ++i) touch_write(p + i); // no fault
        const uintptr_t end = reinterpret_cast<uintptr_t>(p + n + gap);
        EXPECT_EQ(end % page, 0u) << n << " bytes: the gap ends at the guard";
        EXPECT_EQ(b.slack_begin() + b.slack(), p) << n << " bytes: the slack before the data";
    }
}

TEST(GuardedBuffer, StartSideIsPageAligned) {
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    guarded_buffer b(100, guard_side::start);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % page, 0u);
    EXPECT_EQ(b.slack(), page - 100);
    EXPECT_EQ(b.slack_begin(), b.as<unsigned char>() + 100);
}

TEST(GuardedBuffer, MoveTransfersOwnership) {
    guarded_buffer a(32);
    a.fill(0xAB);
    void *p = a.data();
    guarded_buffer b(std::move(a));
    EXPECT_EQ(b.data(), p);
    EXPECT_EQ(b.size(), 32u);
    EXPECT_EQ(b.as<unsigned char>()[31], 0xAB);
    guarded_buffer c(8, guard_side::start);
    c = std::move(b);
    EXPECT_EQ(c.data(), p);
    EXPECT_EQ(c.as<unsigned char>()[0], 0xAB);
}

TEST_F(GuardedBufferDeath, WriteOneBytePastTheEndFaults) {
    SKIP_IF_END_GUARD_MOVED();
    guarded_buffer b(13);
    touch_write(b.as<unsigned char>() + 12); // the last byte is fine
    EXPECT_DEATH(touch_write(b.as<unsigned char>() + 13), "");
}

TEST_F(GuardedBufferDeath, ReadOneBytePastTheEndFaults) {
    SKIP_IF_END_GUARD_MOVED();
    guarded_buffer b(4096);
    EXPECT_DEATH(touch_read(b.as<unsigned char>() + 4096), "");
}

TEST_F(GuardedBufferDeath, WriteOneByteBeforeTheStartFaults) {
    guarded_buffer b(13, guard_side::start);
    touch_write(b.as<unsigned char>()); // the first byte is fine
    EXPECT_DEATH(touch_write(b.as<unsigned char>() - 1), "");
}

TEST_F(GuardedBufferDeath, ReadOneByteBeforeTheStartFaults) {
    guarded_buffer b(4097, guard_side::start);
    EXPECT_DEATH(touch_read(b.as<unsigned char>() - 1), "");
}

TEST_F(GuardedBufferDeath, EmptyBufferFaultsOnAnyAccess) {
    SKIP_IF_END_GUARD_MOVED();
    guarded_buffer b(0);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_DEATH(touch_read(b.data()), "");
}

} // namespace

package soa

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of this process that holds
// addr, from /proc/self/smaps.
func vmFlags(t *testing.T, addr uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(strings.Fields(line)[0], "-") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return line
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return ""
}

// TestLargeBatchesAdviseHugePages checks that the blocks of large batches
// carry the MADV_HUGEPAGE advice (the "hg" flag of their mapping), where
// the kernel has transparent huge pages.
func TestLargeBatchesAdviseHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages unavailable (%q, %v)", mode, err)
	}
	if hugePagesOff {
		t.Skip("GODEBUG=disablethp=1")
	}
	// Whether the advice shows here at all: qemu-user accepts madvise and
	// drops it, so a region of its own that this test advises directly
	// carries no flag there either.
	probe, err := syscall.Mmap(-1, 0, 2*hugePageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(probe)
	adviseHugePages(unsafe.Pointer(&probe[0]), len(probe))
	if at := (uintptr(unsafe.Pointer(&probe[0])) + hugePageSize - 1) &^ (hugePageSize - 1); !strings.Contains(vmFlags(t, at)+" ", " hg ") {
		t.Skip("madvise(MADV_HUGEPAGE) leaves no hg flag on this system (an emulator?)")
	}
	// The first 2 MiB boundary inside a block, which the advice covers.
	inside := func(p unsafe.Pointer) uintptr {
		return (uintptr(p) + hugePageSize - 1) &^ (hugePageSize - 1)
	}
	pairs := NewPairs(1 << 20)
	res := NewResults(1 << 20)
	caps := NewCapsules(1 << 18)
	for _, c := range []struct {
		name string
		addr uintptr
	}{
		{"NewPairs(1<<20)", inside(unsafe.Pointer(&pairs.AX[0]))},
		{"NewResults(1<<20)", inside(unsafe.Pointer(&res.S[0]))},
		{"NewCapsules(1<<18)", inside(unsafe.Pointer(&caps[0]))},
	} {
		if flags := vmFlags(t, c.addr); !strings.Contains(flags+" ", " hg ") {
			t.Errorf("%s: mapping of %#x has %q, want the hg (MADV_HUGEPAGE) flag", c.name, c.addr, flags)
		}
	}
}

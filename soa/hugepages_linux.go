package soa

import (
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// hugePageSize is the size of an x86-64 or arm64 (4 KiB granule)
// transparent huge page.
const hugePageSize = 2 << 20

// madvHugePage is MADV_HUGEPAGE (the same value on every Linux GOARCH).
const madvHugePage = 14

// hugePagesOff is set by GODEBUG=disablethp=1, with which the Go runtime
// keeps the heap off transparent huge pages: soa follows it.
var hugePagesOff = strings.Contains(","+os.Getenv("GODEBUG")+",", ",disablethp=1,")

// adviseHugePages asks Linux to back the whole 2 MiB pages inside the n
// bytes at p with transparent huge pages (madvise MADV_HUGEPAGE), which
// the kernel does where THP is enabled ("always" or "madvise" in
// /sys/kernel/mm/transparent_hugepage/enabled) and a huge page is free.
// It is a hint: the memory is the same, errors are ignored.
func adviseHugePages(p unsafe.Pointer, n int) {
	if hugePagesOff {
		return
	}
	lo := int((hugePageSize - uintptr(p)%hugePageSize) % hugePageSize)
	if n-lo < hugePageSize {
		return
	}
	hi := lo + (n-lo)/hugePageSize*hugePageSize
	_ = syscall.Madvise(unsafe.Slice((*byte)(p), n)[lo:hi], madvHugePage)
}

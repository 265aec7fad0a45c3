package soa

import "unsafe"

// hugeBlockMin is the allocation size, in bytes, from which soa asks for
// transparent huge pages (adviseHugePages; Linux only): a Pairs of about
// 87,000 float32 pairs and more, a Results of 350,000, the float streams
// of a Contacts of 95,000 rows, an IndexPairs of 524,288, a Capsules of
// 131,072 records. A kernel walking such a batch crosses a 4 KiB page
// every 1,024 float32 elements of each stream, and the hardware
// prefetchers stop at page boundaries; with 2 MiB pages BatchClosest at 1M
// pairs takes a few percent less time (docs/levers.md). Smaller batches
// are covered by the TLB.
const hugeBlockMin = 4 << 20

// adviseHuge asks for huge pages under buf if it is at least hugeBlockMin
// bytes long. The memory is fresh from make, so the kernel can back it
// with huge pages when it is first written.
func adviseHuge[F element](buf []F) {
	if n := len(buf) * int(unsafe.Sizeof(buf[0])); n >= hugeBlockMin {
		adviseHugePages(unsafe.Pointer(&buf[0]), n)
	}
}

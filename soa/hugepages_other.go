//go:build !linux

package soa

import "unsafe"

// adviseHugePages does nothing outside Linux (see hugepages_linux.go).
func adviseHugePages(p unsafe.Pointer, n int) {}

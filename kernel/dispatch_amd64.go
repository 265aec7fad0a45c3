//go:build amd64 && gc && !purego

package kernel

func archPaths() []Kernel { return nil }

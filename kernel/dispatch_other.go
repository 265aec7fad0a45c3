//go:build !(amd64 || arm64) || !gc || purego

package kernel

// archPaths returns no assembly paths: this build has only pure Go.
func archPaths() []Kernel { return nil }

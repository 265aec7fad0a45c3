package kernel

import (
	"fmt"
	"strings"
)

// checkNotNil panics, naming the argument, when a batch pointer is nil.
// Every entry point checks its batch pointers first: a nil batch is a
// bug of the caller, not an empty batch.
func checkNotNil[T any](name string, p *T) {
	if p == nil {
		panic(fmt.Sprintf("segdist/kernel: %s is a nil %T", name, p))
	}
}

// lengthMismatch returns the message for streams of unequal lengths: it
// names the first stream whose length differs from the length most
// streams have (the first stream's on a tie), so that the stream at fault
// is named even when it is the one the others are compared with.
func lengthMismatch(names []string, lens []int) string {
	want, most := lens[0], 0
	for _, l := range lens {
		count := 0
		for _, m := range lens {
			if m == l {
				count++
			}
		}
		if count > most {
			want, most = l, count
		}
	}
	var agree []string
	for i, l := range lens {
		if l == want && len(agree) < 2 {
			agree = append(agree, names[i])
		}
	}
	for i, l := range lens {
		if l != want {
			return fmt.Sprintf("segdist/kernel: len(%s) = %d, want %d (len(%s), ...)", names[i], l, want, strings.Join(agree, "), len("))
		}
	}
	return ""
}

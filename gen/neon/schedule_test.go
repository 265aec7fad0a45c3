package neon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/segdist/segdist/gen/tuning"
)

// TestScheduleSteps generates the NEON kernels with each schedule setting
// one step from the default, one at a time: each either generates, every
// hand-encoded word decoding to its comment, or Validate rejects it naming
// the setting.
func TestScheduleSteps(t *testing.T) {
	ss := Default()
	for _, step := range tuning.Steps(tuning.Fields(&ss)) {
		s := Default()
		if err := tuning.Set(step, &s); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			if name, _, _ := strings.Cut(step, "."); !strings.Contains(err.Error(), name) {
				t.Errorf("%s: rejected without naming the setting: %v", step, err)
			}
			t.Logf("%s: rejected: %v", step, err)
			continue
		}
		if err := generates(&s); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
}

// generates generates the kernels as ss says and checks their words.
func generates(ss *Schedules) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("generation panics: %v", r)
		}
	}()
	asm, _, _ := Generate(ss)
	return CheckWords(asm)
}

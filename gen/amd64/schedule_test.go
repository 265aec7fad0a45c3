package amd64

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/pass"

	"github.com/segdist/segdist/gen/kernels"
	"github.com/segdist/segdist/gen/tuning"
)

// declareFor declares the kernels that the setting of path changes.
func declareFor(ss *Schedules, path string) {
	c := newConstants()
	name, rest, _ := strings.Cut(path, ".")
	for _, s := range ss.All() {
		if name != "NTMinLanes" && s.Name() != name {
			continue
		}
		e := &emitter{t: s.Target, s: s, c: c, ntMinLanes: ss.NTMinLanes}
		has := func(prefixes ...string) bool {
			for _, p := range prefixes {
				if strings.HasPrefix(rest, p) {
					return true
				}
			}
			return false
		}
		for _, k := range []*kernels.Kernel{kernels.Contact, kernels.PlaneContact} {
			f := map[*kernels.Kernel]string{kernels.Contact: "Contacts", kernels.PlaneContact: "Planes"}[k]
			if has(f+".Rows.", f+".Reorder", f+".Spill", f+".Pinned") {
				e.Contacts(k, false)
			}
			if has(f+".Compact.", f+".Reorder", f+".Spill", f+".Pinned", f+".Late") {
				e.Contacts(k, true)
			}
		}
		if has("Indexed.", "Bodies.") {
			e.ClosestIndexed()
		}
		if has("Poses.") {
			e.Poses(false)
			e.Poses(true)
		}
		for _, k := range []struct {
			prefix string
			k      *kernels.Kernel
			loop   StreamLoop
		}{{"Streams.Closest.", kernels.Closest, s.Streams.Closest}, {"Streams.Point.", kernels.ClosestPoint, s.Streams.Point}, {"Streams.Stream.", kernels.Stream, s.Streams.Stream}} {
			shared := has("Bodies.", "Streams.SpillSlots", "Streams.Prefetch") || name == "NTMinLanes"
			if shared || has(k.prefix) {
				e.Batch(k.k, k.loop, "is a kernel.")
			}
		}
	}
}

// TestScheduleStepGenerate is the child of TestScheduleSteps: it declares
// the kernels one setting changes and runs avo's passes (register
// allocation among them) and printer on them (-out).
func TestScheduleStepGenerate(t *testing.T) {
	step := os.Getenv("SEGDIST_SCHEDULE_STEP")
	if step == "" {
		t.Skip("run by TestScheduleSteps")
	}
	ss := Default()
	if err := tuning.Set(step, &ss); err != nil {
		t.Fatal(err)
	}
	build.ConstraintExpr("amd64,gc,!purego")
	path, _, _ := strings.Cut(step, "=")
	declareFor(&ss, path)
	pass.Compile = Compile
	build.Generate() // exits with the diagnostics on failure
}

// TestScheduleSteps generates the kernels with each schedule setting one
// step from the default, one at a time: each either generates and passes
// the checks of the committed assembly (AVX2 within Y0-Y15, VZEROUPPER
// before RET, R15 and BP untouched), or Validate rejects it naming the
// setting. Each setting runs in a child process (avo's build context is
// global); -short steps the float32 schedules only, and
// SEGDIST_SCHEDULE_ONLY=text the settings whose path contains text.
func TestScheduleSteps(t *testing.T) {
	ss := Default()
	var fields []tuning.Field
	for _, f := range tuning.Fields(&ss) {
		if testing.Short() && strings.Contains(f.Path, "F64.") || !strings.Contains(f.Path, os.Getenv("SEGDIST_SCHEDULE_ONLY")) {
			continue
		}
		fields = append(fields, f)
	}
	dir := t.TempDir()
	sem := make(chan bool, 2)
	var wg sync.WaitGroup
	for i, step := range tuning.Steps(fields) {
		s := Default()
		if err := tuning.Set(step, &s); err != nil {
			t.Fatal(err)
		}
		path, _, _ := strings.Cut(step, "=")
		if err := s.Validate(); err != nil {
			if name, _, _ := strings.Cut(path, "."); !strings.Contains(err.Error(), name) {
				t.Errorf("%s: rejected without naming the setting: %v", step, err)
			}
			t.Logf("%s: rejected: %v", step, err)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			out := filepath.Join(dir, fmt.Sprintf("step%d.s", i))
			cmd := exec.Command(os.Args[0], "-test.run=^TestScheduleStepGenerate$", "-out="+out)
			cmd.Env = append(os.Environ(), "SEGDIST_SCHEDULE_STEP="+step)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", step, err, firstLines(string(msg), 3))
				return
			}
			src, err := os.ReadFile(out)
			if err != nil {
				t.Error(err)
				return
			}
			if errs := checkFunctions(functionsOf(string(src))); len(errs) > 0 {
				t.Errorf("%s: %d faults, first %s", step, len(errs), errs[0])
			}
		}()
	}
	wg.Wait()
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

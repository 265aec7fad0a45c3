//go:build amd64 && gc && !purego

package kernel

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// generatedFuncs parses asm/kernels_amd64.s into function name -> body
// lines, and function name -> the features of its "Requires:" line.
func generatedFuncs(t *testing.T) (bodies map[string][]string, reqs map[string][]string) {
	t.Helper()
	src, err := os.ReadFile("../asm/kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	bodies, reqs = map[string][]string{}, map[string][]string{}
	var cur string
	var pending []string
	text := regexp.MustCompile(`^TEXT ·(\w+)\(SB\)`)
	for _, line := range strings.Split(string(src), "\n") {
		if r, ok := strings.CutPrefix(line, "// Requires: "); ok {
			pending = strings.Split(r, ", ")
			continue
		}
		if m := text.FindStringSubmatch(line); m != nil {
			cur = m[1]
			reqs[cur], pending = pending, nil
			continue
		}
		if cur != "" {
			bodies[cur] = append(bodies[cur], line)
		}
	}
	if len(bodies) == 0 {
		t.Fatal("no TEXT symbols found in asm/kernels_amd64.s")
	}
	return bodies, reqs
}

// TestGeneratedRequires checks that dispatch tests every CPU feature that
// the generated functions of each path use.
func TestGeneratedRequires(t *testing.T) {
	_, reqs := generatedFuncs(t)
	for name, feats := range reqs {
		isa := "avx2"
		if strings.HasSuffix(name, "AVX512") {
			isa = "avx512"
		}
		want, ok := requires[isa]
		if !ok {
			t.Errorf("%s: no dispatch entry for path %q", name, isa)
			continue
		}
		if len(feats) == 0 {
			t.Errorf("%s: no Requires line", name)
		}
		for _, f := range feats {
			if !slices.Contains(want, f) {
				t.Errorf("%s requires %s, but dispatch for %q does not check it", name, f, isa)
			}
			if _, ok := cpuFeatures[f]; !ok {
				t.Errorf("%s requires %s, which cpuFeatures does not map", name, f)
			}
		}
	}
}

// TestAVX2RegisterBudget guards against avo issue #146: an AVX2 function
// must not name Y16-Y31, X16-X31, a Z or a K register (EVEX-only, SIGILL on
// an AVX2-only CPU), and every function must clear the upper halves before
// each return.
func TestAVX2RegisterBudget(t *testing.T) {
	bodies, _ := generatedFuncs(t)
	evexOnly := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	for name, body := range bodies {
		prev := ""
		for _, line := range body {
			code, _, _ := strings.Cut(line, "//")
			code = strings.TrimSpace(code)
			if strings.HasSuffix(name, "AVX2") && evexOnly.MatchString(code) {
				t.Errorf("%s uses an EVEX-only register: %q", name, code)
			}
			if code == "RET" && prev != "VZEROUPPER" {
				t.Errorf("%s: RET not preceded by VZEROUPPER", name)
			}
			if code != "" && !strings.HasSuffix(code, ":") {
				prev = code
			}
		}
	}
}

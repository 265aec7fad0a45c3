package verify

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository's text says what the code does and why, not when or on
// which machine something was measured: a measured figure belongs in a
// table of docs/performance.md (naming the CPU, the commit and the
// command) or in a row of docs/levers.md. runLogWords are the words of a
// run log; machineWord is the word for a virtual machine, which only
// those two files may use. (The patterns and the planted text of
// TestTimelessFindings are spelt so that this file holds none of the
// words itself.)
var (
	runLogWords = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bsessions?\b`),
		regexp.MustCompile(`Zen ?\d+ V[M]`),
		regexp.MustCompile(`Intel V[M]`),
		regexp.MustCompile(`A/[A]`),
	}
	machineWord = regexp.MustCompile(`\bV[M]\b`)
	// percentage is a measured figure in a comment of the generated
	// assembly (Go assembly itself has no use for '%').
	percentage = regexp.MustCompile(`\d%`)
	generated  = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)
	// machineHeader names a table column that says which machine a row
	// was measured on.
	machineHeader = regexp.MustCompile(`(?i)machine|cpu|host`)
)

// machineTables are the files whose tables may name machines, and where
// the run-log words may stand in those tables' machine columns (and
// nowhere else in the file).
var machineTables = map[string]bool{"docs/performance.md": true, "docs/levers.md": true}

// TestTimelessText fails when a tracked README.md, CHANGELOG.md, docs/
// Markdown file or non-generated .go file holds a run-log word
// (runLogWords), naming the file and line. docs/performance.md and
// docs/levers.md may hold them in the machine column of a table (a column
// whose header says machine, CPU or host), and only they may use
// machineWord. The comments of the generated assembly (asm/*.s) hold no
// run-log word and no percentage either.
func TestTimelessText(t *testing.T) {
	if os.Getenv("SEGDIST_UNDER_QEMU") != "" {
		t.Skip("runs the host's git")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git work tree: ", err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skip("git ls-files: ", err)
	}
	checked := 0
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if !timelessCovered(name) {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".go") && generated.Match(text) {
			continue
		}
		checked++
		for _, f := range timelessFindings(name, string(text)) {
			t.Error(f)
		}
	}
	if checked == 0 {
		t.Fatal("no file checked: has the layout changed?")
	}
}

// timelessCovered reports whether TestTimelessText checks the tracked
// file name (slash-separated, relative to the repository's root).
func timelessCovered(name string) bool {
	switch {
	case name == "README.md", name == "CHANGELOG.md":
		return true
	case strings.HasPrefix(name, "docs/") && strings.HasSuffix(name, ".md"):
		return true
	case strings.HasPrefix(name, "asm/") && strings.HasSuffix(name, ".s"):
		return true
	}
	return strings.HasSuffix(name, ".go")
}

// timelessFindings returns the run-log words of file name (its text), one
// finding per word and line, as "name:line: ...".
func timelessFindings(name, text string) []string {
	var found []string
	lines := strings.Split(text, "\n")
	asm := strings.HasSuffix(name, ".s")
	var machineCols map[int]bool // of the table the line is in, if any
	inTable := false
	for i, line := range lines {
		checked := line
		if asm {
			// Only comments are text; instructions are not.
			c := strings.Index(line, "//")
			if c < 0 {
				continue
			}
			checked = line[c:]
			if m := percentage.FindString(checked); m != "" {
				found = append(found, fmt.Sprintf("%s:%d: %q: a measured figure in the generated assembly (fix the generator's comment): %s", name, i+1, m, strings.TrimSpace(line)))
			}
		}
		if machineTables[name] {
			row := strings.HasPrefix(strings.TrimSpace(line), "|")
			switch {
			case row && !inTable: // a header row
				inTable = true
				machineCols = map[int]bool{}
				for k, cell := range tableCells(line) {
					if machineHeader.MatchString(cell) {
						machineCols[k] = true
					}
				}
			case row:
				cells := tableCells(line)
				for k := range cells {
					if machineCols[k] {
						cells[k] = ""
					}
				}
				checked = strings.Join(cells, "|")
			default:
				inTable = false
			}
		} else if m := machineWord.FindString(checked); m != "" {
			found = append(found, fmt.Sprintf("%s:%d: %q: only docs/performance.md and docs/levers.md name machines: %s", name, i+1, m, strings.TrimSpace(line)))
		}
		for _, re := range runLogWords {
			if m := re.FindString(checked); m != "" {
				found = append(found, fmt.Sprintf("%s:%d: %q: a run-log word (say what the code does and why; a measured figure goes to docs/performance.md or docs/levers.md): %s", name, i+1, m, strings.TrimSpace(line)))
			}
		}
	}
	return found
}

// tableCells splits a Markdown table row into its cells, the text between
// unescaped '|' (the leading and trailing empty ones included, so that
// the cells of a row line up with those of its header).
func tableCells(line string) []string {
	var cells []string
	var cell bytes.Buffer
	for k := 0; k < len(line); k++ {
		switch {
		case line[k] == '\\' && k+1 < len(line):
			cell.WriteByte(line[k])
			cell.WriteByte(line[k+1])
			k++
		case line[k] == '|':
			cells = append(cells, cell.String())
			cell.Reset()
		default:
			cell.WriteByte(line[k])
		}
	}
	return append(cells, cell.String())
}

// TestTimelessFindings checks the rules of TestTimelessText on planted
// text. The plants spell the run-log words with placeholders: <s> for the
// word of the same name, <vm> for the machine word, <aa> for the
// same-build ratio.
func TestTimelessFindings(t *testing.T) {
	plant := strings.NewReplacer("<s>", "sess"+"ion", "<vm>", "V"+"M", "<aa>", "A/"+"A").Replace
	for _, c := range []struct {
		name, text string
		want       []string // substrings of the findings, in order
	}{
		{"kernel/x.go", "package kernel\n\n// Measured in <s> 12.\n", []string{"kernel/x.go:3: \"<s>\""}},
		{"kernel/x.go", "// <s>s one and two.\n", []string{"kernel/x.go:1: \"<s>s\""}},
		{"kernel/x.go", "// <s>ID is not the word.\n", nil},
		{"README.md", "Fast.\n-4.9% on the Zen 4 <vm>.\n", []string{"README.md:2: \"<vm>\"", "README.md:2: \"Zen 4 <vm>\""}},
		{"docs/design.md", "on the Zen5 <vm>\n", []string{"docs/design.md:1: \"<vm>\"", "docs/design.md:1: \"Zen5 <vm>\""}},
		{"CHANGELOG.md", "the Intel <vm>\n", []string{"CHANGELOG.md:1: \"<vm>\"", "CHANGELOG.md:1: \"Intel <vm>\""}},
		{"gen/amd64/x.go", "// 0.97x (<aa> 0.99x)\n", []string{"gen/amd64/x.go:1: \"<aa>\""}},
		{"asm/kernels_amd64.s", "\tVMOVUPS Z0, (AX)\n\t// two loads, not three (-4.9%).\n", []string{"asm/kernels_amd64.s:2: \"9%\""}},
		{"asm/kernels_amd64.s", "\tVMOVUPS Z0, (AX) // one store\n", nil},
		// The machine column of the two performance files may name a
		// machine; nothing else in them may use a run-log word.
		{"docs/levers.md", "| kernel | change | outcome | machine | date |\n|---|---|---|---|---|\n| BatchClosest | x | 0.97x | Zen 4 <vm>, <aa> 0.99x | 2026-11-25 |\n", nil},
		{"docs/levers.md", "| kernel | outcome | machine |\n|---|---|---|\n| BatchClosest | 0.97x (<aa> 0.99x) | Zen 4 <vm> |\n", []string{"docs/levers.md:3: \"<aa>\""}},
		{"docs/performance.md", "## Measured on the Zen 4 <vm>\n\n| path | ns/pair |\n|---|---|\n| avx512 | 1.05 |\n", []string{"docs/performance.md:1: \"Zen 4 <vm>\""}},
		{"docs/performance.md", "| CPU | path |\n|---|---|\n| Zen 4 <vm> | avx512 |\n\nZen 4 <vm> again\n", []string{"docs/performance.md:5: \"Zen 4 <vm>\""}},
		{"docs/performance.md", "| a \\| b | machine |\n|---|---|\n| x \\| y | Intel <vm> |\n", nil},
	} {
		name, text := c.name, plant(c.text)
		got := timelessFindings(name, text)
		if len(got) != len(c.want) {
			t.Errorf("%s %q: findings %q, want %d", name, text, got, len(c.want))
			continue
		}
		for k, w := range c.want {
			if w = plant(w); !strings.Contains(got[k], w) {
				t.Errorf("%s %q: finding %q, want it to contain %q", name, text, got[k], w)
			}
		}
	}
	if !generated.MatchString("// Code generated by command: go run . (segdist/gen). DO NOT EDIT.\n\npackage asm\n") {
		t.Error("the generated-file line is not recognised")
	}
}

var (
	// docCitation is a citation of a Markdown file of the repository in Go
	// source (comments and strings), with the heading it names, if any:
	// `docs/design.md, "Loop drivers"`.
	docCitation = regexp.MustCompile(`\b((?:docs/[\w.-]+|[A-Z][A-Z_]*)\.md)(?:, "([^"]+)")?`)
	// commentBreak is a line break inside a comment, with the next line's
	// comment marker: a heading may wrap there.
	commentBreak = regexp.MustCompile(`\n\s*//\s*`)
)

// TestDocCitationsResolve checks that every Markdown file a tracked .go
// file cites (docs/*.md, or an upper-case name at the root, such as
// README.md) is in the repository
// and, where the citation names a heading ("docs/design.md, \"Loop
// drivers\""), that the file has that heading, so that code never points
// at text that is gone.
func TestDocCitationsResolve(t *testing.T) {
	if os.Getenv("SEGDIST_UNDER_QEMU") != "" {
		t.Skip("runs the host's git")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git work tree: ", err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "*.go").Output()
	if err != nil {
		t.Skip("git ls-files: ", err)
	}
	headings := map[string]map[string]bool{} // by cited file; nil: missing
	headingsOf := func(md string) map[string]bool {
		if h, ok := headings[md]; ok {
			return h
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(md)))
		var h map[string]bool
		if err == nil {
			h = map[string]bool{}
			for _, l := range strings.Split(string(text), "\n") {
				if strings.HasPrefix(l, "#") {
					h[strings.TrimSpace(strings.TrimLeft(l, "#"))] = true
				}
			}
		}
		headings[md] = h
		return h
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			continue // deleted in the work tree
		}
		if name == "internal/verify/timeless_test.go" {
			continue // its examples
		}
		src := strings.ReplaceAll(string(text), `\"`, `"`)
		lineOf := func(off int) int { return 1 + strings.Count(src[:off], "\n") }
		for _, m := range docCitation.FindAllStringSubmatchIndex(src, -1) {
			md := src[m[2]:m[3]]
			h := headingsOf(md)
			if h == nil {
				t.Errorf("%s:%d: cites %s, which is not in the repository", name, lineOf(m[0]), md)
				continue
			}
			if m[4] >= 0 {
				heading := commentBreak.ReplaceAllString(src[m[4]:m[5]], " ")
				if !h[heading] {
					t.Errorf("%s:%d: cites %s, %q: no such heading", name, lineOf(m[0]), md, heading)
				}
			}
		}
	}
}

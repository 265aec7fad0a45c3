// Command mca predicts the speed of a generated kernel's main loop with
// llvm-mca, for targets without hardware here (arm64) and to calibrate
// against the measured ones (amd64):
//
//	cd gen && go run ./mca -goarch arm64 -mcpu neoverse-v2 -func ClosestNEON -lanes 4
//	cd gen && go run ./mca -goarch amd64 -mcpu znver4 -func ClosestAVX512 -lanes 48
//
// It builds the kernel package's test binary for -goarch, disassembles
// asm.<func> with llvm-objdump, takes the loop closed by a backward branch
// (the one with the most instructions, or -loop N in address order),
// replaces branch targets by a label so that llvm-mca can parse it, and
// prints llvm-mca's cycles per iteration and per lane (-lanes: lanes per
// iteration of that loop) and the loop's stack loads and stores (spills).
// It needs llvm-mca-19 and llvm-objdump-19 (Debian: apt-get install
// llvm-19). llvm-mca models the core's pipes and reorder window, not its
// memory: treat the figures as predictions for cache-resident batches.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var (
	goarch   = flag.String("goarch", "arm64", "GOARCH of the kernel to analyse")
	mcpu     = flag.String("mcpu", "neoverse-v2", "llvm-mca -mcpu")
	fn       = flag.String("func", "ClosestNEON", "generated function in package asm")
	lanes    = flag.Int("lanes", 4, "lanes (pairs) per iteration of the loop")
	loopN    = flag.Int("loop", -1, "which loop, in address order (default: the longest)")
	printAsm = flag.Bool("print-asm", false, "print the loop given to llvm-mca")
	bin      = flag.String("bin", "", "analyse this binary instead of building the kernel tests")
	taken    = flag.Bool("taken", false, "forward branches inside the loop are taken: rare blocks (and compaction of a group without contact) skipped, the common path")
)

func tool(name string) string {
	for _, p := range []string{name + "-19", "/usr/lib/llvm-19/bin/" + name} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	fmt.Fprintf(os.Stderr, "mca: %s-19 not found: apt-get install llvm-19\n", name)
	os.Exit(2)
	return ""
}

type insn struct {
	addr uint64
	text string
}

var (
	lineRE   = regexp.MustCompile(`^\s*([0-9a-f]+):\s+(.*)$`)
	symRE    = regexp.MustCompile(`\s*<[^>]*>`)
	targetRE = regexp.MustCompile(`\s(?:0x)?[0-9a-f]+\s*<[^>]*>\s*$`)
	branchRE = regexp.MustCompile(`^(b\.\w+|b|cbn?zw?|cbn?z|tbn?z|j\w+|jmp)\s+(?:.*,\s*)?(?:0x)?([0-9a-f]+)\s*<`)
)

func main() {
	flag.Parse()
	path := *bin
	if path == "" {
		dir, err := os.MkdirTemp("", "mca")
		check(err)
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "kernel.test")
		cmd := exec.Command("go", "test", "-c", "-o", path, "./kernel")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "GOARCH="+*goarch)
		cmd.Stderr = os.Stderr
		check(cmd.Run())
	}
	code := disassemble(path)
	loops := findLoops(code)
	pick := 0
	for i, l := range loops {
		if l.to-l.from > loops[pick].to-loops[pick].from {
			pick = i
		}
	}
	if *loopN >= 0 {
		pick = *loopN
	}
	src, spills := loopSource(code, loops[pick])
	if *printAsm {
		fmt.Print(src)
	}
	iters, cycles, instrs, ipc := analyse(src)
	perIter := cycles / iters
	fmt.Printf("%s on %s (llvm-mca -mcpu=%s): loop %d of %d, %d instructions per iteration\n", *fn, *goarch, *mcpu, pick, len(loops), int(instrs/iters))
	fmt.Printf("  %.1f cycles per iteration, %.2f cycles per lane (%d lanes per iteration), IPC %.2f\n", perIter, perIter/float64(*lanes), *lanes, ipc)
	fmt.Printf("  frame loads and stores in the loop (spills, and the contact kernels' staged capsules and rows): %d\n", spills)
}

// disassemble returns the instructions of asm.<func> in the binary path.
func disassemble(path string) []insn {
	sym := "github.com/segdist/segdist/asm." + *fn + ".abi0"
	out, err := exec.Command(tool("llvm-objdump"), "-d", "--no-show-raw-insn", "--disassemble-symbols="+sym, path).Output()
	check(err)
	var code []insn
	for _, l := range strings.Split(string(out), "\n") {
		if m := lineRE.FindStringSubmatch(l); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			code = append(code, insn{a, strings.Join(strings.Fields(m[2]), " ")})
		}
	}
	if len(code) == 0 {
		fmt.Fprintf(os.Stderr, "mca: %s not found in %s\n", sym, path)
		os.Exit(1)
	}
	return code
}

// A loop is the instructions from index from to the backward branch at to.
type loop struct{ from, to int }

// findLoops returns the loops of code: a backward branch to an address
// inside the function.
func findLoops(code []insn) []loop {
	var loops []loop
	index := map[uint64]int{}
	for i, c := range code {
		index[c.addr] = i
	}
	for i, c := range code {
		if m := branchRE.FindStringSubmatch(c.text); m != nil {
			t, _ := strconv.ParseUint(m[2], 16, 64)
			// (A branch to the entry is the stack-growth retry, not a loop.)
			if j, ok := index[t]; ok && t <= c.addr && j > 0 {
				loops = append(loops, loop{j, i})
			}
		}
	}
	if len(loops) == 0 {
		fmt.Fprintln(os.Stderr, "mca: no loop")
		os.Exit(1)
	}
	return loops
}

// loopSource returns loop lp of code as llvm-mca source, its branch
// targets replaced by the label (and with -taken its forward branches
// followed), and the number of its stack loads and stores.
func loopSource(code []insn, lp loop) (string, int) {
	var src strings.Builder
	src.WriteString("loop:\n")
	spills := 0
	skipTo := uint64(0)
	for _, c := range code[lp.from : lp.to+1] {
		if c.addr < skipTo {
			continue
		}
		t := c.text
		if m := branchRE.FindStringSubmatch(t); m != nil && *taken {
			if to, _ := strconv.ParseUint(m[2], 16, 64); to > c.addr && to <= code[lp.to].addr {
				skipTo = to
			}
		}
		if branchRE.MatchString(t) {
			t = targetRE.ReplaceAllString(t, " loop")
		}
		t = symRE.ReplaceAllString(t, "")
		if strings.Contains(t, "x21") || strings.Contains(t, "[sp") || strings.Contains(t, "(%rsp)") || strings.Contains(t, "(%r9)") || strings.Contains(t, "(%r11)") {
			spills++
		}
		src.WriteString("\t" + t + "\n")
	}
	return src.String(), spills
}

// analyse runs llvm-mca on src and returns its iterations, total cycles,
// instructions and IPC.
func analyse(src string) (iters, cycles, instrs, ipc float64) {
	f, err := os.CreateTemp("", "loop*.s")
	check(err)
	defer os.Remove(f.Name())
	_, err = f.WriteString(src)
	check(err)
	f.Close()
	triple := map[string]string{"arm64": "aarch64-linux-gnu", "amd64": "x86_64-linux-gnu"}[*goarch]
	res, err := exec.Command(tool("llvm-mca"), "-mtriple="+triple, "-mcpu="+*mcpu, "-iterations=500", f.Name()).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mca: llvm-mca: %v\n%s", err, res)
		os.Exit(1)
	}
	num := func(key string) float64 {
		m := regexp.MustCompile(key + `:\s+([0-9.]+)`).FindStringSubmatch(string(res))
		if m == nil {
			return 0
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		return x
	}
	return num("Iterations"), num("Total Cycles"), num("Instructions"), num("IPC")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mca:", err)
		os.Exit(1)
	}
}

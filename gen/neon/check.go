package neon

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
)

var wordLine = regexp.MustCompile(`WORD\s+\$0x([0-9a-fA-F]{8})\s*//\s*(.*)$`)

// CheckWords decodes every `WORD $0x... // text` line of a generated
// arm64 assembly file and reports the first whose decoding is not its
// comment: the test that keeps hand-encoded instructions honest.
func CheckWords(src string) error {
	n := 0
	for i, line := range strings.Split(src, "\n") {
		m := wordLine.FindStringSubmatch(line)
		if m == nil {
			if strings.Contains(line, "WORD") {
				return fmt.Errorf("line %d: WORD without an instruction comment: %s", i+1, line)
			}
			continue
		}
		w, _ := strconv.ParseUint(m[1], 16, 32)
		got, err := decode(uint32(w))
		if err != nil {
			return fmt.Errorf("line %d: %s: %v", i+1, strings.TrimSpace(line), err)
		}
		if normalize(got) != normalize(m[2]) {
			return fmt.Errorf("line %d: %s decodes as %q", i+1, strings.TrimSpace(line), got)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no WORD lines")
	}
	return nil
}

// decode returns the GNU syntax of one instruction word.
func decode(w uint32) (string, error) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], w)
	in, err := arm64asm.Decode(b[:])
	if err != nil {
		return "", err
	}
	return arm64asm.GNUSyntax(in), nil
}

// normalize makes spacing, case and a few aliases of GNU syntax
// comparable ("{ v1.s }" and "{v1.s}", "[x5, #32]" and "[x5,#32]",
// "movi v1.2d, #0" and "#0x0"), keeping the mnemonic apart.
func normalize(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = strings.NewReplacer("#0x0", "#0", "#0.0", "#0", "umov ", "mov ", "not ", "mvn ").Replace(s)
	op, args, _ := strings.Cut(s, " ")
	return op + " " + strings.ReplaceAll(strings.ReplaceAll(args, " ", ""), ",#0]", "]")
}

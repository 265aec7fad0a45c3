package neon

// MaxIndex writes MaxIndexNEON, the largest of n pair indices on each
// side (package kernel's range check, run before any kernel): two
// accumulators of four unsigned maxima (VUMAX) take 8 indices of each
// side per iteration, a scalar loop the last n mod 8. It reads pi[0:n]
// and pj[0:n] and nothing else. It returns the Go declaration.
func MaxIndex(w *writer) string {
	w.raw("\n// func MaxIndexNEON(pi *uint32, pj *uint32, n int) uint32\nTEXT ·MaxIndexNEON(SB), NOSPLIT, $0-28\n")
	w.line("MOVD pi+0(FP), R0")
	w.line("MOVD pj+8(FP), R1")
	w.line("MOVD n+16(FP), R2")
	w.line("VEOR V0.B16, V0.B16, V0.B16")
	w.line("VEOR V1.B16, V1.B16, V1.B16")
	w.line("AND $~7, R2, R3")
	w.line("CBZ R3, maxindex_reduce")
	w.label("maxindex_loop")
	w.line("VLD1.P 32(R0), [V2.S4, V3.S4]")
	w.line("VLD1.P 32(R1), [V4.S4, V5.S4]")
	for v := 2; v < 6; v++ { // V2 and V4 into V0, V3 and V5 into V1
		w.line("VUMAX V%d.S4, V%d.S4, V%[2]d.S4", v, v%2)
	}
	w.line("SUBS $8, R3, R3")
	w.line("BNE maxindex_loop")
	w.label("maxindex_reduce")
	w.comment("Fold the 8 lanes into R4.")
	w.line("VUMAX V1.S4, V0.S4, V0.S4")
	w.line("VMOV V0.S[0], R4")
	for lane := 1; lane < 4; lane++ {
		w.line("VMOV V0.S[%d], R5", lane)
		w.line("CMPW R4, R5")
		w.line("CSELW HI, R5, R4, R4")
	}
	w.comment("The last n mod 8 indices of each side.")
	w.line("AND $7, R2, R3")
	w.line("CBZ R3, maxindex_done")
	w.label("maxindex_tail")
	for _, side := range []string{"R0", "R1"} {
		w.line("MOVWU.P 4(%s), R5", side)
		w.line("CMPW R4, R5")
		w.line("CSELW HI, R5, R4, R4")
	}
	w.line("SUBS $1, R3, R3")
	w.line("BNE maxindex_tail")
	w.label("maxindex_done")
	w.line("MOVW R4, ret+24(FP)")
	w.line("RET")
	return "// MaxIndexNEON returns the largest of pi[0:n] and pj[0:n] (0 when n = 0),\n// reading nothing else.\n//\n//go:noescape\nfunc MaxIndexNEON(pi *uint32, pj *uint32, n int) uint32\n"
}

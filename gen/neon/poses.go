package neon

import (
	"fmt"
	"slices"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// Registers of the pose kernels: the seven pose streams in R0-R6.
const (
	localReg  = 7 // the local records
	dstReg    = 8 // the records written
	bodiesReg = 9 // the bodies listed (PosesIndexed)
)

// poseStreams is the number of pose streams (px py pz qx qy qz qw), the
// body's first inputs; the local record's seven fields follow.
const poseStreams = 7

// poseKernel is the pose kernel being written: its body and frame offsets.
type poseKernel struct {
	kernel
	p          *ir.Program
	indexed    bool // the bodies listed in bodiesReg (PosesIndexed)
	set, stage int  // the record's fields; the tail's (or gathered) streams, then the outputs
}

// Poses writes PosesNEON (or Poses64NEON): kernels.Pose over bodies, one
// group of lanes at a time, records loaded and stored by transposing
// LD4/ST4 lane accesses, the tail's streams staged one float at a time.
// With indexed, PosesIndexedNEON: the bodies listed, their stream values
// gathered into the frame, their records at their bodies' offsets. It
// returns the kernel's register use and Go declaration.
func Poses(w *writer, c *constTable, e ir.Elem, indexed bool) (Stats, string) {
	k := kernels.Pose
	name := k.Name + e.Suffix() + "NEON"
	params, names := "local, dst *%s, n int", append(k.Inputs[:poseStreams:poseStreams], "local", "dst", "n")
	argRegs := []int{0, 1, 2, 3, 4, 5, 6, localReg, dstReg, nReg}
	if indexed {
		name = "PosesIndexed" + e.Suffix() + "NEON"
		params = "local, dst *%s, bodies *uint32, n int"
		names, argRegs = slices.Insert(names, 9, "bodies"), slices.Insert(argRegs, 9, bodiesReg)
	}
	pk := &poseKernel{kernel: newKernel(w, c, e, name), p: k.ProgramOf(e), indexed: indexed}
	lanes := pk.lanes
	_, _, shift := moves(pk.size)
	pk.spillsOf(pk.p, dry, nil)
	pk.set, pk.stage = pk.take(poseStreams), pk.take(2*poseStreams)
	pk.text(fmt.Sprintf("(px, py, pz, qx, qy, qz, qw *%s, "+params+")", e, e), false, 8*len(names))
	loadArgs(w, names, argRegs, iReg)

	pk.groupLoop(func() {
		w.line("LSL $%d, R%d, R%d", shift, iReg, offReg)
		in := func(s int) source { return func(d int) inst { return ldrqr(d, s, offReg) } }
		if indexed {
			for lane := range lanes {
				pk.gather(lane)
			}
			in = slots(pk.stage)
		}
		pk.group(name+"_group", lanes, in)
	}, fmt.Sprintf("The n mod %d bodies left: streams staged through the frame, records lane by lane.", lanes))
	w.line("LSL $%d, R%d, R%d", shift, iReg, offReg)
	pk.tail()
	w.label(name + "_done")
	w.line("RET")
	return pk.stats(), poseDecl(name, indexed, e)
}

// group writes one group: its records (lanes of them, from record iReg
// on), the body, its records out. stream(s) is where the body reads
// stream s.
func (pk *poseKernel) group(label string, lanes int, stream func(s int) source) {
	w := pk.w
	pk.records(label+"_in", lanes, ld4, localReg)
	for v := range poseStreams {
		w.op(strqi(v, frameReg, pk.set+16*v))
	}
	l := pk.body(pk.p, label, func(s int) source {
		if s >= poseStreams {
			return slot(pk.set + 16*(s-poseStreams))
		}
		return stream(s)
	}, nil)
	w.comment("The outputs in V0-V6 (through the frame), V7 zero, stored as records.")
	out := pk.stage + 16*poseStreams
	l.storeOutputs(poseStreams, out)
	for j := range poseStreams {
		w.op(ldrqi(j, frameReg, out+16*j))
	}
	w.op(movi0(7))
	pk.records(label+"_out", lanes, st4, dstReg)
}

// records emits the transposing record access op (ld4 or st4: the
// record's eight values to or from V0-V7) for each lane of the group
// (lanes of them in a whole group; in the tail, those below leftReg) with
// tmpC walking the records from record iReg of base, or, indexed, at the
// record of each lane's body.
func (pk *poseKernel) records(label string, lanes int, op func(ir.Elem, int, int, int, int) inst, base int) {
	w, e := pk.w, pk.e
	if !pk.indexed {
		w.line("ADD R%d<<%d, R%d, R%d", iReg, 5+int(e), base, tmpC)
	}
	one := func(lane int) {
		if pk.indexed {
			indexOf(w, bodiesReg, lane)
			w.line("ADD R%d<<%d, R%d, R%d", tmpB, 5+int(e), base, tmpC) // 32 or 64 bytes a record
		}
		w.op(op(e, 0, lane, tmpC, 4*e.Bytes()))
		w.op(op(e, 4, lane, tmpC, 4*e.Bytes()))
	}
	if lanes == 0 {
		pk.copyLanes(leftReg, label, one)
	}
	for lane := range lanes {
		one(lane)
	}
}

// tail writes the group of the n mod lanes bodies left: their streams
// copied into a zeroed stage one float at a time, then the group reading
// only their records and writing only theirs.
func (pk *poseKernel) tail() {
	zeroSlots(pk.w, pk.stage, poseStreams)
	pk.copyLanes(leftReg, pk.name+"_tailstreams", func(lane int) {
		if pk.indexed {
			pk.gather(lane)
		} else {
			pk.stageLane(poseStreams, pk.stage, lane)
		}
	})
	pk.group(pk.name+"_tailgroup", 0, slots(pk.stage))
}

// gather copies the values of lane's body in the seven streams to lane of
// the staged streams, one float at a time.
func (pk *poseKernel) gather(lane int) {
	w, size := pk.w, pk.size
	load, store, shift := moves(size)
	indexOf(pk.w, bodiesReg, lane)
	for s := range poseStreams {
		w.line("ADD R%d<<%d, R%d, R%d", tmpB, shift, s, tmpA)
		w.line("%s (R%d), R%d", load, tmpA, tmpC)
		w.line("%s R%d, %d(R%d)", store, tmpC, pk.stage+16*s+size*lane, frameReg)
	}
}

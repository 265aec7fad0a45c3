package amd64

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// The contact kernels gather the capsules of each pair by index (the
// source), run the kernels.Contact body and store one row per pair or
// only the touching pairs, densely (the sink).

const contactSignature = "func(caps *[7]*float32, pi, pj *uint32, out *[13]*float32, n int, margin float32) int"

// Registers of the contact kernels.
var (
	curSet    = RAX // the gathered capsule pairs of the current group
	nextSet   = RBX // the next group's, gathered while the current one computes
	slotsBase = R9  // the aligned slot area
	written   = R11 // rows written (compaction)
	// capsRegs hold the first six capsule stream pointers (AX AY AZ BX BY
	// BZ); R is loaded when used.
	capsRegs = []GPPhysical{RCX, RDX, RSI, RDI, R8, R10}
)

// GatherPace is how many vector operations of a contact body separate two
// of the next group's gathers.
var GatherPace = 10

// numGathered is the number of values gathered per capsule pair: A B r of
// each capsule, in the order of kernels.Contact's inputs.
const numGathered = 14

// Contacts emits ContactsISA (compact false) or CompactContactsISA.
//
// The loop is software-pipelined: the first group is gathered before the
// loop; each iteration computes the group in curSet while the next group's
// fourteen gathers are spread through its arithmetic (every GatherPace
// operations outside rare blocks, via lowering.afterOp) into nextSet, then
// swaps the two sets. The last whole group and the masked tail run without
// a next group. Why: on the Zen 5 machines here VGATHERDPS fetches about
// one element per cycle (14 gathers per 16 pairs take 3.9 ns/pair on
// their own, measured with C intrinsics), and gathering each group just
// before its arithmetic left the two nearly serial (8.8 ns/pair at 4,096
// pairs; 7.3 pipelined, same run).
func Contacts(t *ir.Target, c *constants, compact bool) {
	check(t)
	k := kernels.Contact
	name := k.Name + t.Name
	if compact {
		name = "Compact" + name
	}
	TEXT(name, 0, contactSignature) // not NOSPLIT: the slot area is several KiB
	Pragma("noescape")
	if compact {
		Doc(name+" computes the contacts of n capsule pairs with "+t.Name+" and writes",
			"those of the touching pairs densely, in pair order; it returns their number.",
			"Bit-identical to fallback.ContactLane on each. caps holds the seven capsule",
			"streams AX AY AZ BX BY BZ R, pi and pj the n pair indices (all in range),",
			"out the thirteen soa.Contacts streams, each with room for n rows; n > 0.")
	} else {
		Doc(name+" computes the contacts of n capsule pairs with "+t.Name+", one row",
			"per pair, bit-identical to fallback.ContactLane on each; it returns n. caps holds",
			"the seven capsule streams AX AY AZ BX BY BZ R, pi and pj the n pair indices",
			"(all in range), out the thirteen soa.Contacts streams of n rows; n > 0.")
	}
	XORQ(index, index)
	XORQ(written, written)
	Load(Param("caps"), scratch)
	for i, r := range capsRegs {
		MOVQ(Mem{Base: scratch, Disp: 8 * i}, r)
	}

	p := k.Program()
	l := &lowering{t: t, p: p, consts: c}
	l.zero, l.one = l.newVec(), l.newVec()
	// The slots, then two sets of 14 slots for the gathered capsule pairs:
	// the current group's and the next one's. Compaction on AVX2 parks two
	// more vectors.
	nslots := slotsNeeded(t, p) + 2
	l.slots = newSlots(slotsBase, nslots+2*numGathered, t.VecBytes())
	l.slots.n = nslots
	LEAQ(Mem{Base: slotsBase, Disp: nslots * t.VecBytes()}, curSet)
	LEAQ(Mem{Base: slotsBase, Disp: (nslots + numGathered) * t.VecBytes()}, nextSet)
	VXORPS(l.zero, l.zero, l.zero)
	VBROADCASTSS(c.get("one", 0x3F800000), l.one)
	var allLanes Op // AVX-512: an opmask with all 16 lanes set, live for the whole kernel
	if evex(t) {
		allLanes = K()
		KMOVW(c.low16, allLanes) // (KXNORW would read it before it is set, as avo sees it)
	}

	Comment("Gather the first group.")
	Load(Param("n"), remain)
	CMPQ(remain, U32(t.Lanes))
	JB(LabelRef(name + "_tail"))
	for _, emit := range gathers(t, curSet, 0, nil, allLanes) {
		emit()
	}

	Label(name + "_loop")
	Load(Param("n"), remain)
	SUBQ(index, remain)
	CMPQ(remain, U32(t.Lanes))
	JB(LabelRef(name + "_tail"))
	CMPQ(remain, U32(2*t.Lanes))
	JB(LabelRef(name + "_last"))
	Comment("Software pipeline: the next group's gathers are spread through this group's")
	Comment("arithmetic, so that their loads overlap its long dependency chain.")
	pending := gathers(t, nextSet, t.Lanes, nil, allLanes)
	since := 0
	l.afterOp = func() {
		if since++; since < GatherPace || len(pending) == 0 {
			return
		}
		since = 0
		pending[0]()
		pending = pending[1:]
	}
	contactGroup(l, name+"_full", compact, nil, func() {
		for _, emit := range pending {
			emit()
		}
		l.afterOp = nil
	})
	XCHGQ(curSet, nextSet)
	ADDQ(U32(t.Lanes), index)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_last")
	contactGroup(l, name+"_lastgroup", compact, nil, nil)
	ADDQ(U32(t.Lanes), index)
	Load(Param("n"), remain)
	SUBQ(index, remain)

	Label(name + "_tail")
	TESTQ(remain, remain)
	JZ(LabelRef(name + "_done"))
	mask := tailMask(t, c)
	for _, emit := range gathers(t, curSet, 0, mask, allLanes) {
		emit()
	}
	contactGroup(l, name+"_tailgroup", compact, mask, nil)

	Label(name + "_done")
	if compact {
		Store(written, ReturnIndex(0))
	} else {
		Load(Param("n"), remain)
		Store(remain, ReturnIndex(0))
	}
	VZEROUPPER()
	RET()
}

// gathers returns the emitters of one group's gathers: the pair indices at
// lane index+offset, then capsule I's seven values and capsule J's, each
// gathered (VGATHERDPS) and stored to its slot of set. mask is nil for a
// whole group; allLanes is the AVX-512 all-lanes opmask that each whole
// group's gather copies (nil on AVX2). Each emitter is a few instructions
// that may be placed anywhere outside a rare block.
func gathers(t *ir.Target, set GPPhysical, offset int, mask, allLanes Op) []func() {
	wide := evex(t) // AVX-512
	newVec := func() VecVirtual {
		if wide {
			return ZMM()
		}
		return YMM()
	}
	var emit []func()
	for side, param := range []string{"pi", "pj"} {
		var idx VecVirtual
		for f := range 7 {
			first, last := f == 0, f == 6
			pos := 7*side + f
			emit = append(emit, func() {
				if first {
					Commentf("Gather capsule %s (lanes from index+%d).", param[1:], offset)
					idx = newVec()
					Load(Param(param), scratch)
					m := Mem{Base: scratch, Index: index, Scale: 4, Disp: 4 * offset}
					switch {
					case mask == nil && wide:
						VMOVDQU32(m, idx)
					case mask == nil:
						VMOVDQU(m, idx)
					case wide:
						VMOVDQU32_Z(m, mask, idx)
					default:
						VPMASKMOVD(m, mask, idx)
					}
				}
				base := scratch
				if f < len(capsRegs) {
					base = capsRegs[f]
				} else {
					Load(Param("caps"), scratch)
					MOVQ(Mem{Base: scratch, Disp: 8 * f}, scratch)
				}
				src := Mem{Base: base, Index: idx, Scale: 4}
				// dst is zeroed while idx is live: they get distinct
				// registers, as VGATHERDPS requires.
				dst := newVec()
				if wide {
					kk := K()
					if mask == nil {
						KMOVW(allLanes, kk) // a copy: the gather clears its mask
					} else {
						KMOVW(mask, kk)
					}
					VXORPS(dst, dst, dst)
					VGATHERDPS(src, kk, dst)
				} else {
					mm := newVec()
					if mask == nil {
						VPCMPEQD(mm, mm, mm)
					} else {
						VMOVAPS(mask, mm)
					}
					VXORPS(dst, dst, dst)
					VGATHERDPS(mm, src, dst)
				}
				VMOVUPS(dst, Mem{Base: set, Disp: pos * t.VecBytes()})
				if last {
					// The index stays live past its last gather (see dst).
					keep := newVec()
					if wide {
						VPORD(idx, idx, keep)
					} else {
						VPOR(idx, idx, keep)
					}
				}
			})
		}
	}
	return emit
}

// contactGroup computes the contacts of the group of capsule pairs
// gathered into curSet and stores them. mask is nil for a whole group;
// afterBody, if set, runs between the body and the stores (the pipelined
// loop emits the gathers not yet placed there).
func contactGroup(l *lowering, label string, compact bool, mask Op, afterBody func()) {
	t := l.t
	l.slots.used = 0
	l.label = label
	l.input = func(pos int) Op { return Mem{Base: curSet, Disp: pos * t.VecBytes()} }
	margin, err := Param("margin").Resolve()
	if err != nil {
		panic(err)
	}
	l.arg = func(int) Mem { return margin.Addr }
	l.emit()
	if afterBody != nil {
		afterBody()
	}

	Comment("Pair index k = i + lane.")
	pair := l.newVec()
	if evex(t) {
		VPBROADCASTD(index.As32(), pair)
	} else {
		VMOVD(index.As32(), pair.AsX())
		VPBROADCASTD(pair.AsX(), pair)
	}
	VPADDD(l.consts.iota, pair, pair)
	outs := []func() Op{func() Op { return pair }}
	for j := range l.p.Outputs {
		outs = append(outs, func() Op { return l.out(j) })
	}

	outPtr := func(k int) Mem {
		Load(Param("out"), scratch)
		MOVQ(Mem{Base: scratch, Disp: 8 * k}, scratch)
		if compact {
			return Mem{Base: scratch, Index: written, Scale: 4}
		}
		return Mem{Base: scratch, Index: index, Scale: 4}
	}
	if !compact {
		Comment("Store one row per pair.")
		for k, v := range outs {
			op := v()
			dst := outPtr(k)
			switch {
			case mask == nil:
				VMOVUPS(op, dst)
			case evex(t):
				VMOVUPS(op, mask, dst)
			default:
				VMASKMOVPS(op, mask, dst)
			}
		}
		return
	}

	Comment("Compaction: the touching lanes (count > 0) first, then a store of that many")
	Comment("lanes; nothing at all for a group without one (most groups at a low hit rate).")
	count := l.out(0)
	var touch Op
	if evex(t) {
		k := K()
		VPTESTMD(count, count, k)
		touch = k
		if mask != nil {
			k2 := K()
			KANDW(mask, k, k2)
			touch = k2
		}
		KORTESTW(touch, touch)
	} else {
		v := l.newVec()
		VPCMPGTD(l.zero, count, v) // counts are 0, 1 or 2
		touch = v
		if mask != nil {
			v2 := l.newVec()
			VANDPS(mask, v, v2)
			touch = v2
		}
		VTESTPS(touch, touch)
	}
	JZ(LabelRef(label + "_none"))
	if evex(t) {
		KMOVW(touch, remain.As32())
		POPCNTL(remain.As32(), remain.As32())
		ks := K()
		BZHIL(remain.As32(), l.consts.low16, scratch.As32())
		KMOVW(scratch.As32(), ks)
		for k, v := range outs {
			c := l.newVec()
			VCOMPRESSPS_Z(v(), touch, c)
			VMOVUPS(c, ks, outPtr(k))
		}
	} else {
		VMOVMSKPS(touch, remain.As32())
		LEAQ(l.consts.compress8, scratch)
		SHLQ(U8(5), remain)
		perm := l.newVec()
		VMOVDQU(Mem{Base: scratch, Index: remain, Scale: 1}, perm)
		SHRQ(U8(5), remain)
		POPCNTL(remain.As32(), remain.As32())
		cnt := l.newVec()
		VMOVD(remain.As32(), cnt.AsX())
		VPBROADCASTD(cnt.AsX(), cnt)
		ks := l.newVec()
		VPCMPGTD(l.consts.iota, cnt, ks)
		// 16 registers: the store mask and permutation wait in slots.
		ksSlot, permSlot := l.slots.next(), l.slots.next()
		VMOVUPS(ks, ksSlot)
		VMOVUPS(perm, permSlot)
		for k, v := range outs {
			c, pr, kr := l.newVec(), l.newVec(), l.newVec()
			VMOVUPS(permSlot, pr)
			VPERMPS(v(), pr, c)
			VMOVUPS(ksSlot, kr)
			VMASKMOVPS(c, kr, outPtr(k))
		}
	}
	ADDQ(remain, written)
	Label(label + "_none")
}

# segdist developer tasks. The README's quick start needs none of these.

.PHONY: gen test bench targets ci mca plot

# Regenerate the kernels in asm/ (amd64 through avo, arm64 NEON as text) from gen/.
gen:
	cd gen && go run . -out ../asm/kernels_amd64.s -stubs ../asm/kernels_amd64.go -pkg asm -docfile ../asm/doc.go -neon-out ../asm/kernels_arm64.s -neon-stubs ../asm/kernels_arm64.go

test:
	go test ./...

# Compare paths: go test -bench, then benchstat with one column per path.
bench:
	go test -run '^$$' -bench BatchClosest -count 6 ./bench | tee bench.out
	benchstat -col /isa bench.out

# The performance ratios and their bounds, medians of 10 invocations (bench/targets;
# go run ./bench/targets -markdown -write docs/performance.md writes this machine's table).
targets:
	go run ./bench/targets

ci:
	bash .ci/run

# Predict the main loops with llvm-mca (needs llvm-19), e.g. the NEON
# closest loop on Neoverse V2; see gen/mca for the flags.
mca:
	cd gen && go run ./mca -goarch arm64 -mcpu neoverse-v2 -func ClosestNEON -lanes 8
	cd gen && go run ./mca -goarch arm64 -mcpu neoverse-v2 -func ClosestPointNEON -lanes 4
	cd gen && go run ./mca -goarch arm64 -mcpu neoverse-v2 -func ContactsNEON -lanes 4 -taken
	cd gen && go run ./mca -goarch arm64 -mcpu neoverse-v2 -func CompactContactsNEON -lanes 4 -taken

# The throughput curves (throughput.png): go run ./bench -sweep on this
# machine (its first JSON line names the CPU and its caches), plus the C and
# archsimd peers when gcc is there (cgo, build tag peers), drawn by the plot
# module (gonum, kept out of segdist's module) with the commit in the title.
# For steadier figures pin it to one idle core: taskset -c 1 make plot.
plot:
	go run ./bench -sweep -json > sweep.json
	if command -v gcc >/dev/null; then GOEXPERIMENT=simd go test -tags peers -run TestPeersSweep -count 1 ./bench/peers -peers.sweep "$(CURDIR)/sweep.json"; fi
	cd plot && go run . -in ../sweep.json -out ../throughput.png -commit "$$(git describe --always --dirty)"
	rm -f sweep.json

# Writes three documents with known metrics into directory $2 (makedoc.py
# is $1's directory); rank-*.test derive the expected scores from these.
# stream:  access 250/1000 = 0.25, bytes 2000/1000 = 2, H_6 18,
#          strict SLQ 0.5, 64 B reuse: 50 cold of 250 (all finite < 2^19).
# compute: access 0.05, bytes 0.4, H_6 6, strict 0.9, no miss (0 cold).
# gather:  access 0.2, bytes 1.6, H_6 24, strict 0.1, 100 cold of 200.
set -e
make="python3 $1/makedoc.py"
$make $2/stream.pisa.json '{"program": "./stream", "instr": 1000, "loads": 200, "stores": 50, "h": [20, 20, 20, 20, 20, 19, 18], "slq": [0.7, 0.5], "rd64": [50, [150, 50]], "functions": [{"name": "triad", "file": "stream.c", "line": 10, "instr": 990, "loads": 199, "stores": 50}, {"name": "init", "file": "stream.c", "line": 3, "instr": 10, "loads": 1}]}'
$make $2/compute.pisa.json '{"program": "./compute", "instr": 1000, "loads": 50, "bl": 400, "h": [8, 8, 8, 8, 7, 7, 6], "slq": [0.9, 0.9], "rd64": [0, [50]]}'
$make $2/gather.pisa.json '{"program": "./gather", "instr": 1000, "loads": 200, "h": [26, 26, 26, 26, 25, 25, 24], "slq": [0.6, 0.1], "rd64": [100, [0, 100]]}'

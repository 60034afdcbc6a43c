"""Checks the merged document of Inputs/mpi/ring.c run with N ranks against
the traffic the program sends, derived here from its source:
  rank i -> i+1: one message of (i+1)*100 doubles (800 (i+1) bytes),
  rank i -> i-1: one message of 10 ints (40 bytes),
  per rank: allreduce of 16 doubles (128 bytes given and got), bcast of 5
  ints from rank 0 (20 bytes given by rank 0, got by the others).
Usage: check_ring.py DOC N"""
import json
import sys


def expected_matrices(n):
    messages = [[0] * n for _ in range(n)]
    nbytes = [[0] * n for _ in range(n)]
    for i in range(n):
        nxt, prev = (i + 1) % n, (i - 1) % n
        messages[i][nxt] += 1
        nbytes[i][nxt] += 800 * (i + 1)
        messages[i][prev] += 1
        nbytes[i][prev] += 40
    return messages, nbytes


def main():
    d = json.load(open(sys.argv[1]))
    n = int(sys.argv[2])
    messages, nbytes = expected_matrices(n)
    mpi = d["mpi"]
    checks = [
        ("size", mpi["size"] == n),
        ("complete", d["complete"] is True and mpi["failed_ranks"] == []),
        ("matrix messages", mpi["matrix"]["messages"] == messages),
        ("matrix bytes", mpi["matrix"]["bytes"] == nbytes),
        ("sent", mpi["sent"] == {"messages": 2 * n,
                                 "bytes": sum(map(sum, nbytes))}),
        ("received", mpi["received"] == mpi["sent"]),
        ("collectives", mpi["collectives"] == {
            "calls": 2 * n, "bytes_sent": 128 * n + 20,
            "bytes_received": 128 * n + 20 * (n - 1)}),
        ("calls", mpi["calls"] == {name: n for name in (
            "MPI_Init", "MPI_Finalize", "MPI_Irecv", "MPI_Send", "MPI_Wait",
            "MPI_Sendrecv", "MPI_Allreduce", "MPI_Bcast")}),
        ("ranks", [r["rank"] for r in d["ranks"]] == list(range(n))),
        ("threads carry their rank",
         sorted(t["rank"] for t in d["threads"]) == list(range(n))),
        ("totals add up", d["totals"]["instructions"] ==
         sum(r["instructions"] for r in d["ranks"])),
    ]
    for i, r in enumerate(d["ranks"]):
        m = r["mpi"]
        nxt, prev = (i + 1) % n, (i - 1) % n
        got = 800 * (prev + 1) + 40
        checks += [
            (f"rank {i} sent", m["sent"]["bytes"] == 800 * (i + 1) + 40),
            (f"rank {i} received", m["received"] == {"messages": 2,
                                                     "bytes": got}),
            (f"rank {i} collectives", m["collectives"] == {
                "calls": 2, "bytes_sent": 128 + (20 if i == 0 else 0),
                "bytes_received": 128 + (0 if i == 0 else 20)}),
            (f"rank {i} complete", r["complete"] is True and
             r["exit_status"] == 0),
        ]
    failed = [name for name, ok in checks if not ok]
    for name in failed:
        print(f"check_ring: FAILED: {name}")
    if failed:
        print(json.dumps(mpi, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

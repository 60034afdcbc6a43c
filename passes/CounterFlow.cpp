//===- CounterFlow.cpp - counters by flow conservation --------------------===//
//
// gcov's and LLVM PGO's scheme: the flow graph of a function, a maximum
// spanning tree by estimated edge frequency, a counter on every edge left
// out, and every other count solved from conservation at each node.
//
//===----------------------------------------------------------------------===//
#include "CounterPlan.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/IR/CFG.h"

#include <algorithm>
#include <numeric>

using namespace llvm;

namespace pisa {

namespace {

/// An edge of the flow graph; a null block is the virtual node that links
/// the function's exits back to its entry.
struct FlowEdge {
  BasicBlock *Src = nullptr, *Dst = nullptr;
  uint64_t Weight = 0;
  bool Tree = false;
  bool Hoisted = false; // a back edge counted at a preheader
  // Src -> virtual node: the function left through a call in Src (see
  // mayLeaveMidway). No code can count it: it is always in the tree.
  bool Midway = false;
  int Counter = -1;
  Expr Value;
};

FlowEdge flowEdge(BasicBlock *Src, BasicBlock *Dst, uint64_t Weight) {
  FlowEdge E;
  E.Src = Src;
  E.Dst = Dst;
  E.Weight = Weight;
  return E;
}

/// The flow graph's nodes: the blocks in reverse post-order, then the
/// virtual node.
struct FlowGraph {
  DenseMap<BasicBlock *, unsigned> Node;
  std::vector<BasicBlock *> Blocks;
  std::vector<FlowEdge> Edges;

  unsigned size() const { return Blocks.size() + 1; }
  unsigned nodeOf(BasicBlock *BB) const {
    return BB ? Node.lookup(BB) : size() - 1;
  }
};

/// The blocks, an edge per distinct successor weighted by its estimated
/// frequency, an edge from the virtual node to the entry and one from every
/// block without successors to the virtual node.
FlowGraph buildFlowGraph(PlanContext &C) {
  auto &BFI = C.FAM.getResult<BlockFrequencyAnalysis>(C.F);
  auto &BPI = C.FAM.getResult<BranchProbabilityAnalysis>(C.F);
  FlowGraph G;
  for (BasicBlock *BB : ReversePostOrderTraversal<Function *>(&C.F)) {
    G.Node[BB] = G.Blocks.size();
    G.Blocks.push_back(BB);
  }
  G.Edges.push_back(flowEdge(nullptr, &C.F.getEntryBlock(), UINT64_MAX));
  for (BasicBlock *BB : G.Blocks) {
    uint64_t Freq = BFI.getBlockFreq(BB).getFrequency();
    SmallPtrSet<BasicBlock *, 4> Done;
    for (BasicBlock *Succ : successors(BB)) {
      if (!Done.insert(Succ).second)
        continue;
      uint64_t W = BPI.getEdgeProbability(BB, Succ).scale(Freq);
      if (BB->getTerminator()->getNumSuccessors() > 1 &&
          !Succ->getUniquePredecessor())
        W += W / 2; // critical: rather in the tree than split
      G.Edges.push_back(flowEdge(BB, Succ, W));
    }
    if (succ_empty(BB))
      G.Edges.push_back(flowEdge(BB, nullptr, Freq));
    else if (mayLeaveMidway(*BB)) {
      G.Edges.push_back(flowEdge(BB, nullptr, 0));
      G.Edges.back().Midway = true;
    }
  }
  return G;
}

/// Counts the back edge of every counted loop at its preheader, by the
/// trip count; such an edge stays out of the tree.
void hoistBackEdges(PlanContext &C, FlowGraph &G, Plan &P) {
  LoopHoister Hoister(C);
  for (Loop *L : C.LI.getLoopsInPreorder()) {
    BasicBlock *Latch = L->getLoopLatch(), *Header = L->getHeader();
    auto Back = std::find_if(G.Edges.begin(), G.Edges.end(), [&](auto &E) {
      return E.Src == Latch && E.Dst == Header;
    });
    if (Back == G.Edges.end())
      continue;
    if (std::optional<uint32_t> Counter = Hoister.hoist(L, false, P)) {
      Back->Hoisted = true;
      Back->Counter = int(*Counter);
      Back->Value = Expr{{*Counter, 1}};
    }
  }
}

/// A counter on edge E: at the entry of the block it enters or leaves when
/// the other end is the virtual node, else on the edge itself.
void countEdge(PlanContext &C, FlowEdge &E, Plan &P) {
  E.Counter = int(C.Ids.create());
  E.Value = Expr{{uint32_t(E.Counter), 1}};
  if (!E.Src)
    P.Increments.push_back({uint32_t(E.Counter), firstPoint(E.Dst)});
  else if (!E.Dst)
    P.Increments.push_back({uint32_t(E.Counter), firstPoint(E.Src)});
  else
    P.Increments.push_back({uint32_t(E.Counter), nullptr, E.Src, E.Dst});
}

/// Kruskal's algorithm, midway exits first (they link distinct blocks to
/// the virtual node: no cycle), then the heaviest edges: an edge that would
/// close a cycle gets a counter. Self loops are left to countSelfLoop
/// (returned).
std::vector<unsigned> spanningTree(PlanContext &C, FlowGraph &G, Plan &P) {
  std::vector<FlowEdge> &Edges = G.Edges;
  std::vector<unsigned> ByWeight(Edges.size());
  std::iota(ByWeight.begin(), ByWeight.end(), 0);
  std::stable_sort(ByWeight.begin(), ByWeight.end(),
                   [&](unsigned A, unsigned B) {
                     if (Edges[A].Midway != Edges[B].Midway)
                       return Edges[A].Midway;
                     return Edges[A].Weight > Edges[B].Weight;
                   });
  std::vector<unsigned> Parent(G.size());
  std::iota(Parent.begin(), Parent.end(), 0);
  auto Find = [&](unsigned N) {
    while (Parent[N] != N)
      N = Parent[N] = Parent[Parent[N]];
    return N;
  };
  std::vector<unsigned> SelfLoops;
  for (unsigned I : ByWeight) {
    FlowEdge &E = Edges[I];
    if (E.Hoisted)
      continue;
    if (E.Src && E.Src == E.Dst) {
      SelfLoops.push_back(I);
      continue;
    }
    unsigned S = Find(G.nodeOf(E.Src)), D = Find(G.nodeOf(E.Dst));
    if (S != D) {
      Parent[S] = D;
      E.Tree = true;
      continue;
    }
    countEdge(C, E, P);
  }
  return SelfLoops;
}

/// Tree edges from conservation at each node, leaves first: the edge to a
/// node's parent carries whatever the node's other edges leave unbalanced.
void solveTree(FlowGraph &G) {
  std::vector<FlowEdge> &Edges = G.Edges;
  unsigned NNodes = G.size();
  std::vector<std::vector<unsigned>> Incident(NNodes);
  for (unsigned I = 0; I < Edges.size(); ++I) {
    unsigned S = G.nodeOf(Edges[I].Src), D = G.nodeOf(Edges[I].Dst);
    if (S == D)
      continue; // a self loop is balanced at its node
    Incident[S].push_back(I);
    Incident[D].push_back(I);
  }
  std::vector<int> ParentEdge(NNodes, -1);
  std::vector<bool> Seen(NNodes, false);
  std::vector<unsigned> Order, Stack{NNodes - 1};
  Seen[NNodes - 1] = true;
  while (!Stack.empty()) {
    unsigned N = Stack.back();
    Stack.pop_back();
    Order.push_back(N);
    for (unsigned I : Incident[N]) {
      if (!Edges[I].Tree)
        continue;
      unsigned Other = G.nodeOf(Edges[I].Src) == N ? G.nodeOf(Edges[I].Dst)
                                                   : G.nodeOf(Edges[I].Src);
      if (Seen[Other])
        continue;
      Seen[Other] = true;
      ParentEdge[Other] = int(I);
      Stack.push_back(Other);
    }
  }
  for (auto It = Order.rbegin(); It != Order.rend(); ++It) {
    unsigned N = *It;
    if (ParentEdge[N] < 0)
      continue;
    FlowEdge &Up = Edges[ParentEdge[N]];
    Expr Balance; // in - out over the other edges
    for (unsigned I : Incident[N])
      if (int(I) != ParentEdge[N])
        addTo(Balance, Edges[I].Value, G.nodeOf(Edges[I].Dst) == N ? 1 : -1);
    // in + Up == out when Up enters N, in == out + Up when it leaves.
    addTo(Up.Value, Balance, G.nodeOf(Up.Dst) == N ? -1 : 1);
  }
}

/// A self loop needs a counter of its own, but on the edge it would cost a
/// split block per iteration: the block's entries are counted instead, and
/// the loop's count is that minus the other incoming edges (which
/// conservation derives without it: a self loop balances at its node).
void countSelfLoop(PlanContext &C, std::vector<FlowEdge> &Edges, unsigned Self,
                   Plan &P) {
  BasicBlock *BB = Edges[Self].Src;
  uint32_t Counter = C.Ids.create();
  Expr Value{{Counter, 1}};
  for (unsigned I = 0; I < Edges.size(); ++I)
    if (I != Self && Edges[I].Dst == BB)
      addTo(Value, Edges[I].Value, -1);
  Edges[Self].Value = Value;
  P.Increments.push_back({Counter, firstPoint(BB)});
}

} // namespace

/// Counted loops' back edges are left out of the tree and counted at their
/// preheader; each block's count is the sum of its incoming edges'.
void planFlow(PlanContext &C, Plan &P) {
  FlowGraph G = buildFlowGraph(C);
  if (C.Opts.Hoist)
    hoistBackEdges(C, G, P);
  std::vector<unsigned> SelfLoops = spanningTree(C, G, P);
  solveTree(G);
  for (unsigned I : SelfLoops)
    countSelfLoop(C, G.Edges, I, P);
  for (const FlowEdge &E : G.Edges)
    if (E.Dst)
      addTo(P.Counts[E.Dst], E.Value, 1);
}

} // namespace pisa

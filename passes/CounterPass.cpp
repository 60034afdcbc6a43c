//===- CounterPass.cpp - pisa-char counter-mode instrumentation -----------===//
//
// Counter mode (docs/counter-mode.md): thread-local 64-bit counters on the
// edges outside a maximum spanning tree of each function's flow graph, so
// that every block's count follows by flow conservation; loop back edges
// counted once at the preheader by their ScalarEvolution trip count; the
// run-time sizes of memcpy/memset; and tables giving each set of equally
// often executed blocks its static instruction mix.
//
//===----------------------------------------------------------------------===//
#include "CounterPass.h"
#include "PisaShared.h"

#include "pisa/abi.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/EHPersonalities.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace llvm;
using namespace pisa;

static cl::opt<std::string>
    ClMode("pisa-mode",
           cl::desc("instrumentation run by clang -fpass-plugin: deep or "
                    "counter"),
           cl::Hidden, cl::init("deep"));
static cl::opt<bool>
    ClFlow("pisa-counter-flow",
           cl::desc("derive block counts by flow conservation (otherwise "
                    "one counter per block)"),
           cl::Hidden, cl::init(true));
static cl::opt<bool>
    ClHoist("pisa-counter-hoist",
            cl::desc("count loop back edges at the preheader by their trip "
                     "count"),
            cl::Hidden, cl::init(true));

bool pisa::counterModeSelected() {
  if (ClMode == "counter")
    return true;
  if (ClMode != "deep")
    report_fatal_error("pisa: -pisa-mode must be deep or counter");
  return false;
}

namespace {

static const char ModuleVar[] = "__pisa_counter_module";
static const char CounterArrayVar[] = "__pisa_counters";
static const char CounterAddrFn[] = "__pisa_counters_addr";
static const char CtorFn[] = "__pisa_counter_ctor";
static const char MarkerVar[] = "__pisa_counter_marker";

/// A count as sum(coeff * counter).
using Expr = std::map<uint32_t, int64_t>;

static void addTo(Expr &Dst, const Expr &Src, int64_t Sign) {
  for (const auto &[Counter, Coeff] : Src)
    if ((Dst[Counter] += Sign * Coeff) == 0)
      Dst.erase(Counter);
}

/// An edge of the flow graph; a null block is the virtual node that links
/// the function's exits back to its entry.
struct FlowEdge {
  BasicBlock *Src = nullptr, *Dst = nullptr;
  uint64_t Weight = 0;
  bool Tree = false;
  bool Hoisted = false; // a back edge counted at a preheader
  int Counter = -1;
  Expr Value;
};

static FlowEdge flowEdge(BasicBlock *Src, BasicBlock *Dst, uint64_t Weight) {
  FlowEdge E;
  E.Src = Src;
  E.Dst = Dst;
  E.Weight = Weight;
  return E;
}

/// Where a counter is incremented and by how much.
struct Increment {
  uint32_t Counter;
  Instruction *Before = nullptr; // or, when null, on the edge Src -> Dst
  BasicBlock *Src = nullptr, *Dst = nullptr;
  const SCEV *Amount = nullptr; // null: 1
};

struct SetRow {
  pisa_counter_set Table;
};

struct FunctionRow {
  std::string Name, Display, File;
  uint32_t Line = 0, FirstSet = 0, NSets = 0, DynCounter = PISA_COUNTER_NONE;
};

/// One function's plan: block counts and the increments that produce them.
struct Plan {
  DenseMap<BasicBlock *, Expr> Counts;
  std::vector<Increment> Increments;
  std::vector<std::pair<uint32_t, BasicBlock *>> HoistSites; // counter, at
};

class CounterInstrumenter {
public:
  CounterInstrumenter(Module &M, FunctionAnalysisManager &FAM)
      : M(M), FAM(FAM), Ctx(M.getContext()), DL(M.getDataLayout()),
        I8(Type::getInt8Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
        I64(Type::getInt64Ty(Ctx)), PtrTy(PointerType::getUnqual(Ctx)) {}

  bool run();

private:
  bool splitAtRegionMarkers(Function &F);
  bool flowApplies(Function &F);
  void planBlocks(Function &F, Plan &P, bool Regions);
  void planFlow(Function &F, Plan &P);
  const SCEV *backedgeCount(Loop *L);
  const SCEV *hoistTarget(Loop *L, const SCEV *Amount, BasicBlock *&At,
                          BasicBlock *&EdgeTo);
  uint32_t hoistedCounter(const SCEV *Amount, BasicBlock *At,
                          BasicBlock *EdgeTo, Plan &P);
  void planHoist(Loop *L, std::vector<FlowEdge> &Edges, Plan &P);
  DenseMap<Loop *, uint32_t> planSpines(Plan &P);
  void countSelfLoop(std::vector<FlowEdge> &Edges, unsigned Self, Plan &P);
  void solveTree(std::vector<FlowEdge> &Edges, unsigned NNodes,
                 const DenseMap<BasicBlock *, unsigned> &Node);
  void recordSets(Function &F, Plan &P, uint32_t FnIndex);
  void addBlockToSet(BasicBlock &BB, pisa_counter_set &T, bool &HasDyn);
  void instrumentFunction(Function &F, Plan &P, uint32_t FnIndex);
  Value *counterSlot(IRBuilder<> &B, uint32_t Counter);
  void emitAdd(Instruction *Before, uint32_t Counter, Value *Amount);
  Instruction *insertionPoint(const Increment &Inc);
  void countDynamicBytes(Function &F, uint32_t DynCounter);
  void checkThread(Function &F);
  void declareRuntime();
  Constant *stringConstant(StringRef S);
  void emitTables();

  Module &M;
  FunctionAnalysisManager &FAM;
  LLVMContext &Ctx;
  const DataLayout &DL;
  Type *I8, *I32, *I64;
  PointerType *PtrTy;

  GlobalVariable *Counters = nullptr; // thread-local [N x i64], made last
  GlobalVariable *CounterPlaceholder = nullptr;
  GlobalVariable *ThreadFlag = nullptr;
  FunctionCallee ThreadStart;
  Value *FnCounters = nullptr; // this function's thread-local array address
  ScalarEvolution *SE = nullptr;
  LoopInfo *LI = nullptr;
  DominatorTree *DT = nullptr;
  DenseMap<Loop *, const SCEV *> TripCache;
  SmallPtrSet<Instruction *, 8> Artificial; // terminators of split blocks
  StringMap<Constant *> Strings;

  uint32_t NCounters = 0;
  std::vector<uint32_t> IncrementSets; // per counter, see pisa/abi.h
  std::vector<FunctionRow> Functions;
  std::vector<SetRow> Sets;
  std::vector<pisa_counter_term> Terms;
  std::vector<pisa_instr> Instrs;
  std::vector<std::string> Calls;
  DenseMap<BasicBlock *, uint32_t> SetOfBlock; // module-local set index
};

/// Where a block's own increments go: after its phis, landing pad and, in
/// the entry block, its allocas (which must stay static).
static Instruction *firstPoint(BasicBlock *BB) {
  BasicBlock::iterator It = BB->getFirstInsertionPt();
  while (isa<AllocaInst>(*It))
    ++It;
  return &*It;
}

uint32_t newCounter(uint32_t &N, std::vector<uint32_t> &IncrementSets) {
  IncrementSets.push_back(PISA_COUNTER_NONE);
  return N++;
}

static bool isRegionMarker(const Instruction &I) {
  const auto *CI = dyn_cast<CallInst>(&I);
  const Function *Callee = CI ? CI->getCalledFunction() : nullptr;
  return Callee && (Callee->getName() == PISA_FN_ROI_BEGIN ||
                    Callee->getName() == PISA_FN_ROI_END);
}

/// A region starts or ends exactly at its marker: the block holding a
/// marker call is split after it, and the branch that joins the halves is
/// no instruction of the program.
bool CounterInstrumenter::splitAtRegionMarkers(Function &F) {
  std::vector<Instruction *> Markers;
  for (Instruction &I : instructions(F))
    if (isRegionMarker(I))
      Markers.push_back(&I);
  for (Instruction *Call : Markers) {
    BasicBlock *BB = Call->getParent();
    SplitBlock(BB, Call->getNextNode());
    Artificial.insert(BB->getTerminator());
  }
  return !Markers.empty();
}

/// Flow conservation needs every edge to be countable: no indirect branches,
/// no exception pads (their edges cannot be split).
bool CounterInstrumenter::flowApplies(Function &F) {
  if (!ClFlow)
    return false;
  for (BasicBlock &BB : F) {
    if (BB.isEHPad())
      return false;
    const Instruction *T = BB.getTerminator();
    if (isa<IndirectBrInst>(T) || isa<CallBrInst>(T) || isa<InvokeInst>(T))
      return false;
  }
  return true;
}

/// One counter per set, at the entry of its first block, without flow
/// conservation.  Outside loops a block joins the set of an earlier block
/// that dominates it and that it post-dominates (both run at most once per
/// call, and one exactly when the other does); blocks in loops, and every
/// block of a function with region markers (a region window must see exact
/// block entries), have a counter of their own.
void CounterInstrumenter::planBlocks(Function &F, Plan &P, bool Regions) {
  PostDominatorTree *PDT =
      Regions ? nullptr : &FAM.getResult<PostDominatorTreeAnalysis>(F);
  DenseMap<Loop *, uint32_t> Spines = planSpines(P);
  std::vector<BasicBlock *> Leaders;
  for (BasicBlock *BB : ReversePostOrderTraversal<Function *>(&F)) {
    Loop *L = LI->getLoopFor(BB);
    auto Spine = L ? Spines.find(L) : Spines.end();
    if (Spine != Spines.end() && DT->dominates(BB, L->getLoopLatch())) {
      P.Counts[BB] = Expr{{Spine->second, 1}};
      continue;
    }
    bool Loose = !Regions && !L;
    auto Leader = std::find_if(Leaders.begin(), Leaders.end(), [&](auto *A) {
      return Loose && DT->dominates(A, BB) && PDT->dominates(BB, A);
    });
    if (Leader != Leaders.end()) {
      P.Counts[BB] = P.Counts[*Leader];
      continue;
    }
    uint32_t C = newCounter(NCounters, IncrementSets);
    P.Counts[BB] = Expr{{C, 1}};
    P.Increments.push_back({C, firstPoint(BB)});
    if (Loose)
      Leaders.push_back(BB);
  }
}

/// Without flow conservation, a counted loop's spine (the blocks of the
/// loop itself, not of inner loops, that dominate its latch: once per
/// iteration) is counted at the preheader by the number of iterations.
/// Loops holding region markers are never counted (the markers' calls may
/// not return, as far as backedgeCount knows).
DenseMap<Loop *, uint32_t> CounterInstrumenter::planSpines(Plan &P) {
  DenseMap<Loop *, uint32_t> Spines;
  if (!ClHoist)
    return Spines;
  for (Loop *L : LI->getLoopsInPreorder()) {
    const SCEV *Trips = backedgeCount(L);
    BasicBlock *At, *EdgeTo;
    const SCEV *Amount =
        Trips
            ? hoistTarget(L, SE->getAddExpr(Trips, SE->getOne(I64)), At, EdgeTo)
            : nullptr;
    if (Amount)
      Spines[L] = hoistedCounter(Amount, At, EdgeTo, P);
  }
  return Spines;
}

/// The back-edge count of a loop whose only exit is its latch and whose
/// calls all return: ScalarEvolution's exact count, as i64; else null.
const SCEV *CounterInstrumenter::backedgeCount(Loop *L) {
  auto It = TripCache.find(L);
  if (It != TripCache.end())
    return It->second;
  const SCEV *Count = nullptr;
  BasicBlock *Latch = L->getLoopLatch();
  if (L->getLoopPredecessor() && Latch && L->getExitingBlock() == Latch) {
    const SCEV *BTC = SE->getBackedgeTakenCount(L);
    if (!isa<SCEVCouldNotCompute>(BTC) &&
        SE->getTypeSizeInBits(BTC->getType()) <= 64)
      Count = SE->getNoopOrZeroExtend(BTC, I64);
    for (BasicBlock *BB : L->blocks())
      for (Instruction &I : *BB)
        if (Count && isa<CallBase>(I) && (I.mayThrow() || !I.willReturn()))
          Count = nullptr; // the loop might be left through a call
  }
  TripCache[L] = Count;
  return Count;
}

/// Where and by how much to count Amount executions per entry of L at
/// once: L's preheader, moved out of enclosing counted loops (times their
/// iterations) while Amount is invariant there and the preheader runs once
/// per enclosing iteration.  Without a dedicated preheader, on the edge
/// from L's predecessor (EdgeTo is then L's header, else null).  Null when
/// it cannot be expanded before L.
const SCEV *CounterInstrumenter::hoistTarget(Loop *L, const SCEV *Amount,
                                             BasicBlock *&At,
                                             BasicBlock *&EdgeTo) {
  SCEVExpander Expander(*SE, DL, "pisa.trips");
  At = L->getLoopPreheader();
  EdgeTo = At ? nullptr : L->getHeader();
  if (EdgeTo) {
    At = L->getLoopPredecessor();
    return Expander.isSafeToExpandAt(Amount, At->getTerminator()) ? Amount
                                                                  : nullptr;
  }
  std::vector<std::pair<const SCEV *, BasicBlock *>> Chain{{Amount, At}};
  for (Loop *Outer = LI->getLoopFor(At); Outer; Outer = LI->getLoopFor(At)) {
    const SCEV *OuterCount = backedgeCount(Outer);
    if (!OuterCount || !Outer->getLoopPreheader() ||
        !DT->dominates(At, Outer->getLoopLatch()) ||
        !SE->isLoopInvariant(Amount, Outer))
      break;
    Amount =
        SE->getMulExpr(Amount, SE->getAddExpr(OuterCount, SE->getOne(I64)));
    At = Outer->getLoopPreheader();
    Chain.push_back({Amount, At});
  }
  while (!Chain.empty() &&
         !Expander.isSafeToExpandAt(Chain.back().first,
                                    Chain.back().second->getTerminator()))
    Chain.pop_back();
  if (Chain.empty())
    return nullptr;
  At = Chain.back().second;
  return Chain.back().first;
}

/// A counter incremented by Amount at At's end, or on the edge from At to
/// EdgeTo; its updates are counted as At's executions (exact for a
/// preheader, an upper bound for an edge; pisa_counter_module.increments).
uint32_t CounterInstrumenter::hoistedCounter(const SCEV *Amount, BasicBlock *At,
                                             BasicBlock *EdgeTo, Plan &P) {
  uint32_t C = newCounter(NCounters, IncrementSets);
  if (EdgeTo)
    P.Increments.push_back({C, nullptr, At, EdgeTo, Amount});
  else
    P.Increments.push_back({C, At->getTerminator(), nullptr, nullptr, Amount});
  P.HoistSites.push_back({C, At});
  return C;
}

/// Counts the back edge of L at the preheader, by the trip count.
void CounterInstrumenter::planHoist(Loop *L, std::vector<FlowEdge> &Edges,
                                    Plan &P) {
  const SCEV *Trips = backedgeCount(L);
  BasicBlock *At, *EdgeTo;
  const SCEV *Amount = Trips ? hoistTarget(L, Trips, At, EdgeTo) : nullptr;
  if (!Amount)
    return;
  BasicBlock *Latch = L->getLoopLatch(), *Header = L->getHeader();
  for (FlowEdge &E : Edges)
    if (E.Src == Latch && E.Dst == Header) {
      E.Hoisted = true;
      E.Counter = hoistedCounter(Amount, At, EdgeTo, P);
      E.Value = Expr{{uint32_t(E.Counter), 1}};
    }
}

/// Tree edges from conservation at each node, leaves first: the edge to a
/// node's parent carries whatever the node's other edges leave unbalanced.
void CounterInstrumenter::solveTree(
    std::vector<FlowEdge> &Edges, unsigned NNodes,
    const DenseMap<BasicBlock *, unsigned> &Node) {
  auto NodeOf = [&](BasicBlock *BB) {
    return BB ? Node.lookup(BB) : NNodes - 1;
  };
  std::vector<std::vector<unsigned>> Incident(NNodes);
  for (unsigned I = 0; I < Edges.size(); ++I) {
    unsigned S = NodeOf(Edges[I].Src), D = NodeOf(Edges[I].Dst);
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
      unsigned Other = NodeOf(Edges[I].Src) == N ? NodeOf(Edges[I].Dst)
                                                 : NodeOf(Edges[I].Src);
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
        addTo(Balance, Edges[I].Value, NodeOf(Edges[I].Dst) == N ? 1 : -1);
    // in + Up == out when Up enters N, in == out + Up when it leaves.
    addTo(Up.Value, Balance, NodeOf(Up.Dst) == N ? -1 : 1);
  }
}

/// A self loop needs a counter of its own, but on the edge it would cost a
/// split block per iteration: the block's entries are counted instead, and
/// the loop's count is that minus the other incoming edges (which
/// conservation derives without it: a self loop balances at its node).
void CounterInstrumenter::countSelfLoop(std::vector<FlowEdge> &Edges,
                                        unsigned Self, Plan &P) {
  BasicBlock *BB = Edges[Self].Src;
  uint32_t C = newCounter(NCounters, IncrementSets);
  Expr Value{{C, 1}};
  for (unsigned I = 0; I < Edges.size(); ++I)
    if (I != Self && Edges[I].Dst == BB)
      addTo(Value, Edges[I].Value, -1);
  Edges[Self].Value = Value;
  P.Increments.push_back({C, firstPoint(BB)});
}

/// gcov's scheme: the flow graph (blocks, plus a virtual node from the
/// exits to the entry), a maximum spanning tree by estimated frequency, a
/// counter on every other edge; counted loops' back edges are left out of
/// the tree and counted at their preheader.
void CounterInstrumenter::planFlow(Function &F, Plan &P) {
  auto &BFI = FAM.getResult<BlockFrequencyAnalysis>(F);
  auto &BPI = FAM.getResult<BranchProbabilityAnalysis>(F);
  DenseMap<BasicBlock *, unsigned> Node;
  std::vector<BasicBlock *> Blocks;
  for (BasicBlock *BB : ReversePostOrderTraversal<Function *>(&F)) {
    Node[BB] = Blocks.size();
    Blocks.push_back(BB);
  }
  unsigned NNodes = Blocks.size() + 1;
  std::vector<FlowEdge> Edges;
  Edges.push_back(flowEdge(nullptr, &F.getEntryBlock(), UINT64_MAX));
  for (BasicBlock *BB : Blocks) {
    uint64_t Freq = BFI.getBlockFreq(BB).getFrequency();
    SmallPtrSet<BasicBlock *, 4> Done;
    for (BasicBlock *Succ : successors(BB)) {
      if (!Done.insert(Succ).second)
        continue;
      uint64_t W = BPI.getEdgeProbability(BB, Succ).scale(Freq);
      if (BB->getTerminator()->getNumSuccessors() > 1 &&
          !Succ->getUniquePredecessor())
        W += W / 2; // critical: rather in the tree than split
      Edges.push_back(flowEdge(BB, Succ, W));
    }
    if (succ_empty(BB))
      Edges.push_back(flowEdge(BB, nullptr, Freq));
  }
  if (ClHoist)
    for (Loop *L : LI->getLoopsInPreorder())
      planHoist(L, Edges, P);

  std::vector<unsigned> ByWeight(Edges.size());
  std::iota(ByWeight.begin(), ByWeight.end(), 0);
  std::stable_sort(ByWeight.begin(), ByWeight.end(),
                   [&](unsigned A, unsigned B) {
                     return Edges[A].Weight > Edges[B].Weight;
                   });
  std::vector<unsigned> Parent(NNodes);
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
    unsigned S = Find(E.Src ? Node[E.Src] : NNodes - 1);
    unsigned D = Find(E.Dst ? Node[E.Dst] : NNodes - 1);
    if (S != D) {
      Parent[S] = D;
      E.Tree = true;
      continue;
    }
    E.Counter = newCounter(NCounters, IncrementSets);
    E.Value = Expr{{uint32_t(E.Counter), 1}};
    if (!E.Src)
      P.Increments.push_back({uint32_t(E.Counter), firstPoint(E.Dst)});
    else if (!E.Dst)
      P.Increments.push_back({uint32_t(E.Counter), firstPoint(E.Src)});
    else
      P.Increments.push_back({uint32_t(E.Counter), nullptr, E.Src, E.Dst});
  }
  solveTree(Edges, NNodes, Node);
  for (unsigned I : SelfLoops)
    countSelfLoop(Edges, I, P);
  for (const FlowEdge &E : Edges)
    if (E.Dst)
      addTo(P.Counts[E.Dst], E.Value, 1);
}

/// Adds one block's static mix to its set's row.
void CounterInstrumenter::addBlockToSet(BasicBlock &BB, pisa_counter_set &T,
                                        bool &HasDyn) {
  ++T.n_blocks;
  for (Instruction &I : BB) {
    if (Artificial.count(&I))
      continue;
    if (isa<PHINode>(I)) {
      ++T.n_phis;
      continue;
    }
    if (!isCounted(I))
      continue;
    if (!T.line)
      if (const DebugLoc &Loc = I.getDebugLoc())
        T.line = Loc.getLine();
    Instrs.push_back(describeInstr(I, DL));
    SiteInfo S;
    if (!classifySite(I, DL, S))
      continue;
    switch (S.Kind) {
    case PISA_SITE_LOAD:
      ++T.accesses[PISA_ACC_LOADS];
      T.bytes_loaded += S.Size;
      break;
    case PISA_SITE_STORE:
      ++T.accesses[PISA_ACC_STORES];
      T.bytes_stored += S.Size;
      break;
    case PISA_SITE_RMW:
      ++T.accesses[PISA_ACC_ATOMICS];
      T.bytes_loaded += S.Size;
      T.bytes_stored += S.Size;
      break;
    case PISA_SITE_MEMCPY:
      ++T.accesses[PISA_ACC_MEMCPY];
      HasDyn = true;
      break;
    case PISA_SITE_MEMSET:
      ++T.accesses[PISA_ACC_MEMSET];
      HasDyn = true;
      break;
    case PISA_SITE_GATHER:
      ++T.accesses[PISA_ACC_GATHERS];
      HasDyn = true;
      break;
    case PISA_SITE_SCATTER:
      ++T.accesses[PISA_ACC_SCATTERS];
      HasDyn = true;
      break;
    case PISA_SITE_CALL:
      if (!S.Callee.empty()) {
        Calls.push_back(S.Callee.str());
        ++T.n_calls;
      }
      break;
    }
  }
}

/// Blocks with the same count expression form one set, in block order.
void CounterInstrumenter::recordSets(Function &F, Plan &P, uint32_t FnIndex) {
  FunctionRow Row;
  Row.Name = F.getName().str();
  Row.Display = demangle(Row.Name);
  if (DISubprogram *SP = F.getSubprogram()) {
    Row.File = SP->getFilename().str();
    Row.Line = SP->getLine();
  }
  Row.FirstSet = Sets.size();
  std::map<Expr, std::vector<BasicBlock *>> Groups;
  std::vector<const Expr *> Order;
  for (BasicBlock &BB : F) {
    auto It = P.Counts.find(&BB);
    if (It == P.Counts.end())
      continue; // unreachable
    auto &Members = Groups[It->second];
    if (Members.empty())
      Order.push_back(&Groups.find(It->second)->first);
    Members.push_back(&BB);
  }
  bool HasDyn = false;
  for (const Expr *E : Order) {
    pisa_counter_set T = {};
    T.function = FnIndex;
    T.first_term = Terms.size();
    for (const auto &[Counter, Coeff] : *E)
      Terms.push_back({Counter, int32_t(Coeff)});
    T.n_terms = Terms.size() - T.first_term;
    T.first_instr = Instrs.size();
    T.first_call = Calls.size();
    for (BasicBlock *BB : Groups[*E]) {
      SetOfBlock[BB] = Sets.size();
      addBlockToSet(*BB, T, HasDyn);
    }
    T.n_instrs = Instrs.size() - T.first_instr;
    Sets.push_back({T});
  }
  Row.NSets = Sets.size() - Row.FirstSet;
  if (HasDyn) {
    Row.DynCounter = newCounter(NCounters, IncrementSets);
    newCounter(NCounters, IncrementSets);
  }
  Functions.push_back(std::move(Row));
}

Value *CounterInstrumenter::counterSlot(IRBuilder<> &B, uint32_t Counter) {
  // Indexed off a placeholder; the real array's type is known at the end.
  return B.CreateConstInBoundsGEP1_64(I64, FnCounters, Counter);
}

void CounterInstrumenter::emitAdd(Instruction *Before, uint32_t Counter,
                                  Value *Amount) {
  IRBuilder<> B(Before);
  Value *Slot = counterSlot(B, Counter);
  Value *Old = B.CreateLoad(I64, Slot, "pisa.ctr");
  B.CreateStore(B.CreateAdd(Old, Amount ? Amount : B.getInt64(1)), Slot);
}

/// An edge's increment goes where only that edge passes: the end of a
/// source with one successor, the start of a target with one predecessor,
/// or a block of its own on a critical edge.
Instruction *CounterInstrumenter::insertionPoint(const Increment &Inc) {
  if (Inc.Before)
    return Inc.Before;
  if (Inc.Src->getUniqueSuccessor() == Inc.Dst)
    return Inc.Src->getTerminator();
  if (Inc.Dst->getUniquePredecessor() == Inc.Src)
    return firstPoint(Inc.Dst);
  unsigned SuccNum = GetSuccessorNumber(Inc.Src, Inc.Dst);
  BasicBlock *Mid = SplitCriticalEdge(
      Inc.Src->getTerminator(), SuccNum,
      CriticalEdgeSplittingOptions().setMergeIdenticalEdges());
  if (!Mid) {
    Ctx.emitError("pisa: cannot place a counter on an edge of " +
                  Inc.Src->getParent()->getName());
    return Inc.Src->getTerminator();
  }
  return Mid->getTerminator();
}

/// memcpy/memmove add their length to both byte counters, memset to the
/// stored one, gathers and scatters their active lanes times the size.
void CounterInstrumenter::countDynamicBytes(Function &F, uint32_t DynCounter) {
  std::vector<SiteInfo> Sites;
  for (Instruction &I : instructions(F)) {
    SiteInfo S;
    if (isCounted(I) && classifySite(I, DL, S) &&
        (S.Kind == PISA_SITE_MEMCPY || S.Kind == PISA_SITE_MEMSET ||
         S.Kind == PISA_SITE_GATHER || S.Kind == PISA_SITE_SCATTER))
      Sites.push_back(S);
  }
  for (const SiteInfo &S : Sites) {
    auto *CB = cast<CallBase>(S.I);
    IRBuilder<> B(S.I);
    if (S.Kind == PISA_SITE_MEMCPY || S.Kind == PISA_SITE_MEMSET) {
      Value *Len = B.CreateZExtOrTrunc(CB->getArgOperand(2), I64);
      if (S.Kind == PISA_SITE_MEMCPY)
        emitAdd(S.I, DynCounter, Len);
      emitAdd(S.I, DynCounter + 1, Len);
      continue;
    }
    bool Gather = S.Kind == PISA_SITE_GATHER;
    Value *Mask = CB->getArgOperand(Gather ? 2 : 3);
    Value *Bits = B.CreateBitCast(Mask, B.getIntNTy(S.Lanes));
    Value *Active = B.CreateZExtOrTrunc(
        B.CreateUnaryIntrinsic(Intrinsic::ctpop, Bits), I64);
    emitAdd(S.I, DynCounter + (Gather ? 0 : 1),
            B.CreateMul(Active, B.getInt64(S.Size)));
  }
}

/// Functions a new thread can enter first (visible outside the module or
/// called through a pointer) tell the runtime about the thread once.
void CounterInstrumenter::checkThread(Function &F) {
  if (F.hasLocalLinkage() && !F.hasAddressTaken())
    return;
  Instruction *At = cast<Instruction>(FnCounters)->getNextNode();
  IRBuilder<> B(At);
  Value *Flag = B.CreateLoad(I8, B.CreateThreadLocalAddress(ThreadFlag));
  Value *New = B.CreateICmpEQ(Flag, B.getInt8(0));
  Instruction *Then = SplitBlockAndInsertIfThen(
      New, At, false, MDBuilder(Ctx).createBranchWeights(1, 1u << 20));
  IRBuilder<>(Then).CreateCall(ThreadStart);
}

void CounterInstrumenter::instrumentFunction(Function &F, Plan &P,
                                             uint32_t FnIndex) {
  IRBuilder<> EB(firstPoint(&F.getEntryBlock()));
  FnCounters = EB.CreateThreadLocalAddress(CounterPlaceholder);
  // Trip counts are expanded before any edge is split: ScalarEvolution
  // describes the function as it was analysed.
  SCEVExpander Expander(*SE, DL, "pisa.trips");
  std::vector<Value *> Amounts;
  for (const Increment &Inc : P.Increments)
    Amounts.push_back(
        Inc.Amount ? Expander.expandCodeFor(
                         Inc.Amount, I64,
                         Inc.Before ? Inc.Before : Inc.Src->getTerminator())
                   : nullptr);
  for (auto &[Counter, At] : P.HoistSites)
    IncrementSets[Counter] = SetOfBlock.lookup(At);
  std::vector<Instruction *> Points;
  for (const Increment &Inc : P.Increments)
    Points.push_back(insertionPoint(Inc));
  for (unsigned I = 0; I < P.Increments.size(); ++I)
    emitAdd(Points[I], P.Increments[I].Counter, Amounts[I]);
  if (Functions[FnIndex].DynCounter != PISA_COUNTER_NONE)
    countDynamicBytes(F, Functions[FnIndex].DynCounter);
  checkThread(F);
}

void CounterInstrumenter::declareRuntime() {
  // Every function indexes this placeholder; emitTables() replaces it with
  // the thread-local array once the number of counters is known.
  CounterPlaceholder = new GlobalVariable(
      M, ArrayType::get(I64, 0), false, GlobalValue::InternalLinkage,
      ConstantAggregateZero::get(ArrayType::get(I64, 0)), "__pisa_counters_tmp",
      nullptr, GlobalValue::GeneralDynamicTLSModel);
  ThreadFlag = new GlobalVariable(M, I8, false, GlobalValue::ExternalLinkage,
                                  nullptr, PISA_TLS_COUNTER_THREAD, nullptr,
                                  GlobalValue::InitialExecTLSModel);
  AttributeList Attrs = AttributeList()
                            .addFnAttribute(Ctx, Attribute::Cold)
                            .addFnAttribute(Ctx, Attribute::NoUnwind);
  ThreadStart = M.getOrInsertFunction(PISA_FN_COUNTER_THREAD, Attrs,
                                      Type::getVoidTy(Ctx));
}

Constant *CounterInstrumenter::stringConstant(StringRef S) {
  return internString(M, Strings, S);
}

static GlobalVariable *constantArray(Module &M, Type *Elem,
                                     ArrayRef<Constant *> Elems,
                                     const char *Name) {
  auto *Ty = ArrayType::get(Elem, Elems.size());
  return new GlobalVariable(M, Ty, true, GlobalValue::PrivateLinkage,
                            ConstantArray::get(Ty, Elems), Name);
}

void CounterInstrumenter::emitTables() {
  auto C32 = [&](uint64_t V) { return ConstantInt::get(I32, V); };
  auto C8 = [&](uint64_t V) { return ConstantInt::get(I8, V); };
  auto C16 = [&](uint64_t V) {
    return ConstantInt::get(Type::getInt16Ty(Ctx), V);
  };
  Constant *Null = ConstantPointerNull::get(PtrTy);
  auto Str = [&](StringRef S) { return stringConstant(S); };
  auto StrOrNull = [&](StringRef S) { return S.empty() ? Null : Str(S); };
  static_assert(sizeof(pisa_counter_set) == 19 * 4 &&
                    sizeof(pisa_counter_function) == 40 &&
                    sizeof(pisa_counter_term) == 8 &&
                    sizeof(pisa_counter_module) == 96,
                "the emitted struct types below mirror pisa/abi.h");

  // The thread-local counters, replacing the placeholder.
  auto *ArrTy = ArrayType::get(I64, NCounters);
  Counters =
      new GlobalVariable(M, ArrTy, false, GlobalValue::InternalLinkage,
                         ConstantAggregateZero::get(ArrTy), CounterArrayVar,
                         nullptr, GlobalValue::GeneralDynamicTLSModel);
  Counters->setAlignment(Align(64));
  CounterPlaceholder->replaceAllUsesWith(Counters);
  CounterPlaceholder->eraseFromParent();
  Function *Addr =
      Function::Create(FunctionType::get(PtrTy, false),
                       GlobalValue::InternalLinkage, CounterAddrFn, M);
  {
    IRBuilder<> B(BasicBlock::Create(Ctx, "", Addr));
    B.CreateRet(B.CreateThreadLocalAddress(Counters));
  }

  auto *FnTy = StructType::get(Ctx, {PtrTy, PtrTy, PtrTy, I32, I32, I32, I32});
  std::vector<Constant *> Fns;
  for (const FunctionRow &F : Functions)
    Fns.push_back(ConstantStruct::get(
        FnTy, {Str(F.Name), Str(F.Display), StrOrNull(F.File), C32(F.Line),
               C32(F.FirstSet), C32(F.NSets), C32(F.DynCounter)}));
  auto *SetTy = StructType::get(Ctx, std::vector<Type *>(19, I32));
  std::vector<Constant *> SetRows;
  for (const SetRow &S : Sets) {
    const pisa_counter_set &T = S.Table;
    std::vector<Constant *> F = {
        C32(T.function),     C32(T.n_blocks),     C32(T.first_term),
        C32(T.n_terms),      C32(T.first_instr),  C32(T.n_instrs),
        C32(T.first_call),   C32(T.n_calls),      C32(T.n_phis),
        C32(T.bytes_loaded), C32(T.bytes_stored), C32(T.line)};
    for (uint32_t A : T.accesses)
      F.push_back(C32(A));
    SetRows.push_back(ConstantStruct::get(SetTy, F));
  }
  auto *TermTy = StructType::get(Ctx, {I32, I32});
  std::vector<Constant *> TermRows;
  for (const pisa_counter_term &T : Terms)
    TermRows.push_back(
        ConstantStruct::get(TermTy, {C32(T.counter), C32(uint32_t(T.coeff))}));
  auto *InstrTy = StructType::get(Ctx, {I8, I8, I8, I8, Type::getInt16Ty(Ctx),
                                        Type::getInt16Ty(Ctx), I32, I32});
  std::vector<Constant *> InstrRows;
  for (const pisa_instr &I : Instrs)
    InstrRows.push_back(ConstantStruct::get(
        InstrTy, {C8(I.opcode), C8(I.category), C8(I.type_kind), C8(I.flags),
                  C16(I.lanes), C16(I.bits), C32(0), C32(0)}));
  std::vector<Constant *> CallRows, IncRows;
  for (const std::string &C : Calls)
    CallRows.push_back(Str(C));
  for (uint32_t S : IncrementSets)
    IncRows.push_back(C32(S));

  std::vector<Type *> ModFields(8, I32);
  ModFields.insert(ModFields.end(), 8, PtrTy);
  auto *ModTy = StructType::get(Ctx, ModFields);
  Constant *Desc = ConstantStruct::get(
      ModTy,
      {C32(PISA_ABI_VERSION), C32(PISA_MODE_COUNTER), C32(Functions.size()),
       C32(Sets.size()), C32(Terms.size()), C32(Instrs.size()),
       C32(Calls.size()), C32(NCounters), Str(M.getSourceFileName()),
       constantArray(M, FnTy, Fns, "__pisa_counter_functions"),
       constantArray(M, SetTy, SetRows, "__pisa_counter_sets"),
       constantArray(M, TermTy, TermRows, "__pisa_counter_terms"),
       constantArray(M, InstrTy, InstrRows, "__pisa_counter_instrs"),
       constantArray(M, PtrTy, CallRows, "__pisa_counter_calls"),
       constantArray(M, I32, IncRows, "__pisa_counter_increments"), Addr});
  auto *ModVar = new GlobalVariable(
      M, ModTy, false, GlobalValue::InternalLinkage, Desc, ModuleVar);
  ModVar->setSection(PISA_MARKER_SECTION);
  // pisa-char tells a counter build from a deep one by this string.
  Constant *Text = ConstantDataArray::getString(Ctx, PISA_COUNTER_MARKER);
  auto *Marker = new GlobalVariable(
      M, Text->getType(), false, GlobalValue::InternalLinkage, Text, MarkerVar);
  Marker->setSection(PISA_MARKER_SECTION);
  appendToUsed(M, {ModVar, Marker});

  emitRegistration(M, PISA_FN_COUNTER_REGISTER, ModVar, CtorFn);
}

bool CounterInstrumenter::run() {
  if (M.getNamedGlobal(ModuleVar) || M.getNamedGlobal("__pisa_module")) {
    Ctx.emitError("pisa: module '" + M.getModuleIdentifier() +
                  "' is already instrumented by pisa-char");
    return false;
  }
  std::vector<Function *> Targets;
  for (Function &F : M)
    if (shouldInstrument(F))
      Targets.push_back(&F);
  if (Targets.empty())
    return false;
  declareRuntime();
  for (Function *F : Targets) {
    bool Regions = splitAtRegionMarkers(*F);
    FAM.invalidate(*F, PreservedAnalyses::none());
    SE = &FAM.getResult<ScalarEvolutionAnalysis>(*F);
    LI = &FAM.getResult<LoopAnalysis>(*F);
    DT = &FAM.getResult<DominatorTreeAnalysis>(*F);
    TripCache.clear();
    Plan P;
    if (!Regions && flowApplies(*F))
      planFlow(*F, P);
    else
      planBlocks(*F, P, Regions);
    uint32_t FnIndex = Functions.size();
    recordSets(*F, P, FnIndex);
    instrumentFunction(*F, P, FnIndex);
    FAM.invalidate(*F, PreservedAnalyses::none());
  }
  emitTables();
  return true;
}

} // namespace

PreservedAnalyses pisa::PisaCounterPass::run(Module &M,
                                             ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  return CounterInstrumenter(M, FAM).run() ? PreservedAnalyses::none()
                                           : PreservedAnalyses::all();
}

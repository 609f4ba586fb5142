// The engines' ABI: what the host writes into the dispatcher's upload region
// (streams and graphs), the RUN and CANCEL commands that start and stop them,
// the events they post and the reasons they fail with.
//
// The host reads these values from this header (tessel.dispatch.abi), as it
// reads persistent_abi.h. This header is C and free of the standard library.
//
// An upload is whole 64-byte lines in the upload region: one header line
// (KM_ENGINE_H_* words), then the body.
//
// Stream body: instructions, from word 0 of the line after the header; the
// program counter (pc) counts words from there. Each instruction starts with
// one word, op | a << 8 | b << 16 | c << 24 (KM_OP_*), and some carry more
// words after it:
//
//   ALU, registers      op rd rs rt                  rd = rs op rt
//   ALU, immediate      op rd rs -  ; imm            rd = rs op imm (KM_OP_*I)
//   LI                  op rd - -   ; imm            rd = imm
//   JMP                 op - - -    ; target         pc = target
//   BZ, BNZ             op rs - -   ; target         branch when rs == 0 / != 0
//   SUBMIT, ENQUEUE     op handler argc flags ; group ; mask ; argc words
//   WAIT                op - - -                     until every ENQUEUEd command completed
//   EVENT               op ra - -                    post an `event` with register ra
//   HALT                op ra - -                    end with register ra
//   TICKS               op rd - -                    rd = the card clock (50 MHz ticks, low 32 bits)
//   NOP                 op - - -
//
// SUBMIT sends a command and waits for its completion; ENQUEUE sends it and
// goes on (at most KM_ENGINE_INFLIGHT of a stream's commands in flight;
// ENQUEUE waits for room). flags are KM_FLAG_EXCLUSIVE, KM_FLAG_RESULT and
// KM_FLAG_QUEUE, and KM_ENGINE_GROUP_REGS: the group word then names two
// registers (first | count << 8) instead of holding first | count << 16.
// mask: bit i set makes argument word i a register number, not a value;
// with KM_FLAG_RESULT, bits 16..23 name the register the leader's result
// word goes to when the command completes.
//
// Graph body: KM_ENGINE_H_COUNT node records of KM_NODE_WORDS words each,
// then KM_ENGINE_H_OPS operations of two words each (op | rd << 8 | rs << 16
// | rt << 24, imm) for the cpu nodes. A node's dependencies are earlier
// nodes, so a graph has no cycle. A round runs every node once, each when
// its dependencies have finished: a command node sends its command (its
// arguments are registers), a cpu node runs its operations in order. When
// every node has finished, the round ends: with the `again` register
// (KM_GRAPH_AGAIN) nonzero the graph posts a `round` event and runs another
// round, else it ends.
#ifndef TESSEL_ENGINE_ABI_H
#define TESSEL_ENGINE_ABI_H

#define KM_LINE_BYTES 64u
#define KM_UPLOAD_REGION_BYTES 707840u // what the kernel's layout leaves of cluster 0's local memory
#define KM_ENGINE_MAGIC 0x4E454D4Bu    // "KMEN"
#define KM_ENGINE_VERSION 1u
#define KM_ENGINE_STREAM 1u
#define KM_ENGINE_GRAPH 2u
#define KM_ENGINE_STREAMS_MAX 4u // streams running at once
#define KM_ENGINE_GRAPHS_MAX 2u  // graphs running or kept at once
#define KM_ENGINE_REGISTERS 16u
#define KM_ENGINE_BINDINGS_MAX 16u // binding words: one line
#define KM_ENGINE_INFLIGHT 16u     // a stream's ENQUEUEd commands in flight
#define KM_ENGINE_GROUP_REGS 0x10u // SUBMIT/ENQUEUE flag: the group word names registers

// The header line.
#define KM_ENGINE_H_MAGIC 0u
#define KM_ENGINE_H_KIND 1u
#define KM_ENGINE_H_VERSION 2u
#define KM_ENGINE_H_REQ 3u      // 1..255: the engine's events carry it
#define KM_ENGINE_H_FLAGS 4u    // KM_ENGINE_KEEP
#define KM_ENGINE_H_BYTES 5u    // the whole upload, header included
#define KM_ENGINE_H_DEADLINE 6u // microseconds from its start to its end (0: none)
#define KM_ENGINE_H_MAX 7u      // a graph's rounds at most; a stream's instructions at most (0: no limit)
#define KM_ENGINE_H_COUNT 8u    // a stream's code words; a graph's nodes
#define KM_ENGINE_H_OPS 9u      // a graph's cpu operations
#define KM_ENGINE_KEEP 0x1u     // a graph stays loaded after its end, for a restart
#define KM_ENGINE_REQ_MAX 255u

// Stream instructions and the operations of graphs' cpu nodes. The ALU
// operations are unsigned 32-bit; comparisons give 1 or 0; shifts use the
// low 5 bits of their count.
#define KM_OP_NOP 0u
#define KM_OP_MOV 1u // rd = rs
#define KM_OP_ADD 2u
#define KM_OP_SUB 3u
#define KM_OP_MUL 4u
#define KM_OP_AND 5u
#define KM_OP_OR 6u
#define KM_OP_XOR 7u
#define KM_OP_SHL 8u
#define KM_OP_SHR 9u
#define KM_OP_MIN 10u
#define KM_OP_MAX 11u
#define KM_OP_LT 12u
#define KM_OP_LE 13u
#define KM_OP_GT 14u
#define KM_OP_GE 15u
#define KM_OP_EQ 16u
#define KM_OP_NE 17u
#define KM_OP_IMMEDIATE 0x20u // KM_OP_x | KM_OP_IMMEDIATE: the same with an immediate rt
#define KM_OP_LI 0x40u
#define KM_OP_JMP 0x41u
#define KM_OP_BZ 0x42u
#define KM_OP_BNZ 0x43u
#define KM_OP_SUBMIT 0x44u
#define KM_OP_ENQUEUE 0x45u
#define KM_OP_WAIT 0x46u
#define KM_OP_EVENT 0x47u
#define KM_OP_HALT 0x48u
#define KM_OP_TICKS 0x49u

// Graph node records.
#define KM_NODE_WORDS 16u
#define KM_NODE_TYPE 0u    // KM_NODE_COMMAND or KM_NODE_CPU | dependencies << 8 | argc << 16 | flags << 24
#define KM_NODE_HANDLER 1u // command
#define KM_NODE_GROUP 2u   // command: first | count << 16
#define KM_NODE_RESULT 3u  // command: the register of the leader's result word, or KM_NODE_NONE
#define KM_NODE_DEPS 4u    // two words: KM_GRAPH_DEPS_MAX node numbers, a byte each
#define KM_NODE_ARGS 6u    // three words: argc register numbers, a byte each
#define KM_NODE_OPS 9u     // cpu: first operation
#define KM_NODE_NOPS 10u   // cpu: operation count
#define KM_NODE_COMMAND 1u
#define KM_NODE_CPU 2u
#define KM_NODE_NONE 0xFFu
#define KM_GRAPH_NODES_MAX 64u
#define KM_GRAPH_DEPS_MAX 8u
#define KM_GRAPH_OPS_MAX 256u
#define KM_GRAPH_AGAIN 16u // the register number of `again` (written by cpu operations only)

// RUN (KM_HANDLER_RUN): a0 the upload's offset in the region (start) or its
// req (restart); a1 the binding line's offset + 1 (0: no bindings); a2
// KM_RUN_START or KM_RUN_RESTART; a3 the binding words. CANCEL
// (KM_HANDLER_CANCEL): a0 the req. The kernel answers either only when it
// rejects it (KMD_REJECT_*).
#define KM_RUN_START 1u
#define KM_RUN_RESTART 2u

// The engines' events: tag is the req; for `end` auxiliary holds register
// 0's low 24 bits and ticks register 1 (a graph) or the halt register (a
// stream); for `event` and `round` ticks holds the value; for `error`
// auxiliary is reason | (pc or node + 1) << 8 (0: no node). In both `end`
// and `error`, KM_EVENT_KEPT says the graph stays loaded for a restart.
#define KM_EVENT_ENGINE_EVENT 5u
#define KM_EVENT_ENGINE_ROUND 6u
#define KM_EVENT_ENGINE_END 7u
#define KM_EVENT_ENGINE_ERROR 8u
#define KM_EVENT_KEPT 0x1000000u

// Why an engine ended with an error (EngineError.reason; reason_name is the
// lower-case suffix).
#define KM_STREAM_ERROR_NONE 0u
#define KM_STREAM_ERROR_HEADER 1u    // not an upload: magic, kind, version, req or size
#define KM_STREAM_ERROR_OPCODE 2u    // an instruction or operation the engines do not have
#define KM_STREAM_ERROR_PC 3u        // the pc or a branch left the code (or the code ran off its end)
#define KM_STREAM_ERROR_REGISTER 4u  // a register number of 16 or more
#define KM_STREAM_ERROR_HANDLER 5u   // a command's handler is not NOP or 1..239
#define KM_STREAM_ERROR_GROUP 6u     // a command's group does not lie inside the cores
#define KM_STREAM_ERROR_ARGS 7u      // more than KM_ARGS_MAX argument words
#define KM_STREAM_ERROR_STEPS 8u     // a stream ran its most instructions
#define KM_STREAM_ERROR_DEADLINE 9u  // the engine's deadline passed
#define KM_STREAM_ERROR_CANCELLED 10u // CANCEL
#define KM_STREAM_ERROR_FLAGS 11u    // a command's flags (reserved bit, queued with exclusive)
#define KM_STREAM_ERROR_RUNS 12u     // a graph went round again after its most rounds
#define KM_STREAM_ERROR_NODE 13u     // a graph's node: its type, dependencies or operations
#define KM_STREAM_ERROR_BINDINGS 14u // more binding words than registers
#define KM_STREAM_ERROR_TIMEOUT 15u  // a command it sent missed the session's deadline (the grid stops)

// Why the kernel rejected a RUN or CANCEL (with persistent_abi.h's KMD_REJECT_*).
#define KMD_REJECT_ENGINES 5u // four streams, or two graphs, running or kept
#define KMD_REJECT_REQ 6u     // no engine with that req (restart, cancel), or one running already (start)

#endif

// The persistent-dispatch ABI shared by the card's dispatcher, the host and a
// program's persistent kernels (tessel/persistent.h): handler numbers,
// command flags, event kinds, rejection reasons and error codes.
//
// The host reads these values from this header (tessel.dispatch.abi), so a
// host and a kernel built from the same header agree by construction.
//
// This header is C and free of the standard library.
#ifndef TESSEL_PERSISTENT_ABI_H
#define TESSEL_PERSISTENT_ABI_H

// Handlers: 0 is NOP, 1..239 the program's, 240..251 reserved (rejected), and
// the runtime's own commands above them (sent by the host API, never by a
// program's submit).
#define KM_HANDLER_NOP 0u
#define KM_HANDLER_FIRST 1u
#define KM_HANDLER_LAST 239u
#define KM_HANDLER_RESERVED_FIRST 240u
#define KM_HANDLER_RESERVED_LAST 251u
#define KM_HANDLER_CANCEL 252u
#define KM_HANDLER_RUN 253u
#define KM_HANDLER_PING 254u
#define KM_HANDLER_EXIT 255u

// Command flags. Bit 0 is reserved: a command that sets it is rejected.
#define KM_FLAG_RESERVED 0x1u
#define KM_FLAG_EXCLUSIVE 0x2u
#define KM_FLAG_RESULT 0x4u
#define KM_FLAG_QUEUE 0x8u

#define KM_ARGS_MAX 10u
#define KM_CORES_MAX 128u
#define KM_DEPTH_MAX 16u
#define KM_HOST_DEPTH_MAX 64u
#define KM_EVENT_DEPTH_MAX 128u
#define KM_JOB_QUEUE 64u

// Event kinds (the low 8 bits of an event's first word).
#define KM_EVENT_DONE 1u
#define KM_EVENT_TIMEOUT 2u
#define KM_EVENT_PONG 3u
#define KM_EVENT_REJECTED 4u

// An event's auxiliary word: the low 8 bits are the first core of the group
// (done), the slot (timeout) or the reason (rejected); the next 16 bits are
// the low bits of the command's sequence number.
#define KM_AUX_VALUE_BITS 8u
#define KM_AUX_SEQUENCE_SHIFT 8u
#define KM_AUX_SEQUENCE_BITS 16u

// Why the kernel rejected a command (CommandRejected.reason).
#define KMD_REJECT_HANDLER 1u
#define KMD_REJECT_FLAGS 2u
#define KMD_REJECT_GROUP 3u
#define KMD_REJECT_EXITED 4u
#define KMD_REJECT_QUEUE 9u

// The dispatcher's state and error in its result block.
#define KM_STATE_IDLE 0u
#define KM_STATE_STARTING 1u
#define KM_STATE_READY 2u
#define KM_STATE_RUNNING 3u
#define KM_STATE_EXITING 4u
#define KM_STATE_DONE 5u

#define KM_ERROR_NONE 0u
#define KM_ERROR_DEADLINE 1u
#define KM_ERROR_IDLE 2u
#define KM_ERROR_KERNEL_IDLE 3u
#define KM_ERROR_KERNEL 4u
#define KM_ERROR_STOPPED 5u
#define KM_ERROR_WAIT 6u

// The runtime's circular buffers: the command's token for compute and for the
// writer, and the trace.
#define KM_CB_TOKEN_COMPUTE 29u
#define KM_CB_TOKEN_WRITER 30u
#define KM_CB_TRACE 31u

// Bytes of L1 per traced sequence number, and the card's timer.
#define KM_TRACE_ENTRY_BYTES 16u
#define KM_TIMER_MHZ 50u

// Each core's control block in L1 (written by the card, read by the core's
// persistent loop and, after the stop, by the host):
//
//   KM_CONTROL_L1 + 4 * KM_WORD_*      state words (KM_STATE_WORDS of them)
//   KM_CONTROL_L1 + KM_MAILBOX_OFFSET  mailbox: KM_MAILBOX_SLOTS slots of
//                                      KM_MAILBOX_WORDS words (KM_MB_*)
#define KM_CONTROL_L1 0x2600u
#define KM_STATE_WORDS 16u
#define KM_WORD_STOP 0u      // the stop flag: nonzero ends the loop
#define KM_WORD_PASS 1u      // loop passes (the pass marker)
#define KM_WORD_PHASE 2u     // what the core does: KM_PHASE_*
#define KM_WORD_SEQUENCE 3u  // sequence number of the command taken last
#define KM_WORD_TAKEN 4u     // commands taken
#define KM_WORD_DONE 5u      // commands this core finished (all three RISCs)
#define KM_WORD_HANDLER 6u   // handler of the command taken last
#define KM_WORD_READY 7u     // 1 once the core's loop waits for its first command
#define KM_WORD_GAVE_UP 8u   // a reader that gave up waiting: its port + 1 (0: none)
#define KM_WORD_GAVE_UP_W 9u // the same for the writer
#define KM_MAILBOX_OFFSET 0x40u
#define KM_MAILBOX_SLOTS (KM_DEPTH_MAX + 1u) // slot `depth` carries EXIT
#define KM_MAILBOX_WORDS 16u
#define KM_MB_SEQUENCE 0u // the command's sequence number
#define KM_MB_HANDLER 1u  // handler | flags << 8 | the RISCs that take part << 24 (bit per KM_ROLE_*)
#define KM_MB_GROUP 2u    // first core | core count << 16
#define KM_MB_SLOT 3u     // completion slot (0 .. depth - 1)
#define KM_MB_INDEX 4u    // this core's index in the group (0: the leader)
#define KM_MB_ARGC 5u     // argument count
#define KM_MB_ARGS 6u     // KM_ARGS_MAX argument words

// The broadcast protocol's words (tessel/persistent.h, persistent::Broadcast),
// after the mailbox. On the root: WANTED, per ring slot, the grants the
// receivers gave; DONE_BY, the receivers that finished; the bases of both
// the root keeps across broadcasts. On a receiver: VALID, the root's last
// block (epoch << 16 | block + 1). On both: blocks handled, ticks spent
// waiting, and the first give-up (block + 1 of the wait that ran out; 0: none).
#define KM_BROADCAST_OFFSET 0x480u
#define KM_BCAST_VALID 0u
#define KM_BCAST_DONE_BY 1u
#define KM_BCAST_BLOCKS 2u
#define KM_BCAST_WAIT_TICKS 3u
#define KM_BCAST_GAVE_UP 4u
#define KM_BCAST_DONE_BASE 5u
#define KM_BCAST_WANTED 8u       // KM_BCAST_WINDOW_MAX words
#define KM_BCAST_WANTED_BASE 16u // KM_BCAST_WINDOW_MAX words
#define KM_BCAST_WINDOW_MAX 8u
#define KM_BCAST_WORDS 24u
// Core-to-core ports (persistent::Port): KM_PORTS slots of KM_PORT_WORDS
// words. On the receiver of port p: COUNT, the blocks that arrived, and
// RECEIVED, those it took; on the sender: WANTED, the grants the receiver
// gave, and SENT, the blocks it sent. GAVE_UP: 1 when this core gave up
// sending on the port, 2 receiving (0: never).
#define KM_PORT_OFFSET 0x500u
#define KM_PORTS 8u
#define KM_PORT_WORDS 8u
#define KM_PORT_COUNT 0u
#define KM_PORT_WANTED 1u
#define KM_PORT_SENT 2u
#define KM_PORT_RECEIVED 3u
#define KM_PORT_GAVE_UP 4u
#define KM_CONTROL_BYTES 0x600u // the whole control block, per core
// Words of a broadcast's arguments (layout.broadcast_args): the rectangle's
// first and last NoC coordinates (x | y << 16), the receivers, the root's.
#define KM_BROADCAST_ARGS 4u

#define KM_PHASE_WAITING 0u // for its next command
#define KM_PHASE_READER 1u  // the reader runs a handler
#define KM_PHASE_EXITED 2u  // the loop ended (EXIT or the stop flag)

// A token page of CBs 29 and 30: the mailbox slot the command is in.
#define KM_TOKEN_BYTES 16u

// Runtime arguments the runtime puts before the program's own on every RISC:
// role (KM_ROLE_*), this core's index in core order, the core count, depth.
#define KM_STARTUP_ARGS 4u
#define KM_ROLE_READER 0u
#define KM_ROLE_WRITER 1u
#define KM_ROLE_COMPUTE 2u

#ifndef __ASSEMBLER__
#include <stdint.h>
struct tessel_kernel_ctx;
// What a persistent kernel calls on its card (the kernel API's extension
// TESSEL_EXTENSION_CARD). Calls that fail stop the kernel, as every kernel
// API call does.
struct tessel_card_api {
  // The reader's next command, blocking until there is one: the L1 words
  // of its mailbox slot (KM_MB_*).
  const volatile uint32_t* (*take)(struct tessel_kernel_ctx*, const char* file, uint32_t line);
  // This RISC finished its part of the command in mailbox slot `slot`; the
  // core reports to its group's leader once its three RISCs have.
  void (*done)(struct tessel_kernel_ctx*, uint32_t slot, const char* file, uint32_t line);
  // The command's result word (the leader's reaches the host with KM_FLAG_RESULT).
  void (*set_result)(struct tessel_kernel_ctx*, uint32_t slot, uint32_t value);
  // The card's clock, in KM_TIMER_MHZ ticks.
  uint64_t (*ticks)(struct tessel_kernel_ctx*);
  // The handler numbers this RISC's kernel has (called once, before the
  // first take): a command none of a core's RISCs handles is served by the
  // card on an idle core's behalf, and a RISC without a handler for a
  // command gets no token for it.
  void (*announce)(struct tessel_kernel_ctx*, const uint32_t* numbers, uint32_t count);
  // Waits until *word >= value, at most the session's `wait` seconds: 1 when
  // it holds, 0 when the wait ran out (the core gave up).
  uint32_t (*wait_word)(struct tessel_kernel_ctx*, volatile uint32_t* word, uint32_t value, const char* file,
                        uint32_t line);
};
#endif

#endif

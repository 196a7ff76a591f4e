/**
 * The seccomp program a sandbox hands bwrap, run on one system call: a classic BPF interpreter for
 * the instructions plugins/sandbox/seccomp.ts assembles (load, and, jeq, jge, ret), so a test reads
 * the filter's verdict on any ABI without that machine.
 */

/** What `program` answers for system call `nr` of the ABI `arch` (an audit arch) with `args` (low halves). */
export function filterVerdict(program: Buffer, arch: number, nr: number, args: number[] = []): string {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  for (const [i, a] of args.entries()) data.writeUInt32LE(a, 16 + 8 * i);
  let acc = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const [jt, jf, k] = [program[pc * 8 + 2]!, program[pc * 8 + 3]!, program.readUInt32LE(pc * 8 + 4)];
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x54) acc = (acc & k) >>> 0;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k === 0x7fff0000 ? "allow" : k === 0x80000000 ? "kill" : `errno ${k & 0xffff}`;
    else throw new Error(`unexpected instruction ${code.toString(16)} at ${pc}`);
  }
  throw new Error("fell off the end");
}

# A Ruby zygote's own code: run as `ruby -e <this file's text> SOCK PIDFD LIBRARY` inside a
# fork server's sandbox (forkserver.py, `Zygote`), as zygote_main.py is for Python.
#
# It initialises nothing beyond what the interpreter's start did, requires verify-forkserver
# built as a library (forkserver.c, VERIFY_ZYGOTE_LIBRARY: a Ruby extension, Init_verify_zygote)
# and hands it the process: each step is forked from here and made as any fork-server step is.
# The library returns only in a step's program process, after go (the interpreter's thread
# state and random seed reset there as Ruby's own fork resets them, fresh eventfds in place of
# the zygote's), where the program is run as `ruby SCRIPT ARGS` would run it: ARGV and $0 those
# of that command line, the script compiled as the main script (its top frame `<main>`), this
# code's frames left out of an uncaught exception's backtrace, and the interpreter's own end
# (END blocks, at_exit, flushes, the exit status of an exception or a signal). A script that a
# fresh interpreter reads differently from a compiled file (a `__END__` line, for DATA, or
# options on a `#!` line naming ruby) is run by a fresh interpreter instead (an exec). The
# zygote's loop is C: no Ruby code runs in the zygote between steps, so every step starts from
# the same interpreter state. Everything here lives in a block: nothing of it stays in the
# program's top-level scope but this block's frames, which `caller` would show.
-> {
  features = $LOADED_FEATURES.dup
  require ARGV[2]
  STDOUT.syswrite("r")
  exit!(0) if VerifyZygote.serve(Integer(ARGV[0]), Integer(ARGV[1])) != 0
  command = VerifyZygote.argv
  Object.send(:remove_const, :VerifyZygote)
  $LOADED_FEATURES.replace(features)
  script = command[1]
  source = begin
    File.binread(script) if command.length >= 2 && !script.start_with?("-")
  rescue SystemCallError
    nil
  end
  first = source && source[/\A[^\n]*/]
  if source.nil? || source.match?(/^__END__\r?$/) || (first.start_with?("#!") && first.match?(/ruby.*\s-/))
    exec(*command)
  end
  external = ->(word) {
    text = word.dup.force_encoding(Encoding.default_external)
    text.force_encoding(Encoding::BINARY) if text.encoding == Encoding::US_ASCII && !text.ascii_only?
    text.freeze
  }
  ARGV.replace(command.drop(2).map(&external))
  $0 = script
  begin
    compiled = RubyVM::InstructionSequence.compile_file(script)
  rescue SyntaxError => error
    STDERR.write(error.message)
    exit!(1)
  end
  begin
    compiled.eval
  rescue Exception => error
    trace = error.backtrace
    if trace
      trace = trace.dup
      trace.pop while trace.last&.start_with?("-e:")
      error.set_backtrace(trace)
    end
    raise
  end
}.()

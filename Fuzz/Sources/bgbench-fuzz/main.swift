import Foundation

// libFuzzer's driver, started from an ordinary `main`: the fuzz build links libFuzzer
// without its own `main` (libclang_rt.fuzzer_no_main, Fuzz/run.sh), so SwiftPM's entry
// point is the one that runs. The driver reads libFuzzer's options from the command line
// and calls `fuzzOne` with each input.

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzOne($0, $1) })

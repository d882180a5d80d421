import Foundation

/// One part of a run split over several processes or machines (`--shard K/N`): shard K of
/// N simulates the blocks of 64 devices from ⌊K·B/N⌋ to ⌊(K+1)·B/N⌋ (B: the fleet's
/// blocks) under every policy and seed; `bgbench merge` adds the shards' exact sums into
/// the report the whole run writes, byte for byte (MODEL.md §2). More shards than blocks
/// is allowed: some are empty.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The whole run: one shard.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    init(uncheckedIndex index: Int, count: Int) { self.index = index; self.count = count }

    /// Shard `index` of `count`; nil unless 0 ≤ index < count.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.init(uncheckedIndex: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard's blocks of a fleet of `devices`.
    public func blocks(devices: Int) -> Range<Int> {
        let b = Fleet.blocks(devices: devices)
        return (index * b / count)..<((index + 1) * b / count)
    }

    /// The shard's devices.
    public func devices(of fleet: Int) -> Range<Int> {
        let b = blocks(devices: fleet)
        return min(fleet, b.lowerBound * Fleet.blockSize)..<min(fleet, b.upperBound * Fleet.blockSize)
    }

    /// `K/N` as typed.
    public static func parse(_ text: String) -> Shard? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        return Shard(index: k, count: n)
    }

    /// The shard a job engine gives this process (`--shard auto`, `--shard auto/N`):
    ///
    /// - Slurm array jobs: K is the task's position among the array's tasks, from
    ///   `SLURM_ARRAY_TASK_ID`, `_MIN`, `_MAX`, `_STEP` (default 1) and `_COUNT`, so that any
    ///   range (`1-4`, `0-15:4`) maps onto 0…N−1; N = `SLURM_ARRAY_TASK_COUNT`.
    /// - Kubernetes Indexed Jobs: K = `JOB_COMPLETION_INDEX`; N from `auto/N` or
    ///   `BGBENCH_SHARD_COUNT`.
    ///
    /// `count` is N when given as `auto/N`: it must agree with the engine's. Both engines'
    /// variables set at once is refused.
    public static func fromEnvironment(_ env: [String: String], count: Int?) throws(ShardError) -> Shard {
        func integer(_ name: String) throws(ShardError) -> Int? {
            guard let text = env[name] else { return nil }
            guard let v = Int(text.trimmingCharacters(in: .whitespaces)) else { throw .badVariable(name, text) }
            return v
        }
        // Both engines' variables (a Slurm job that starts a Kubernetes one, or a variable
        // left exported) would give two shards; choosing one could run a shard twice.
        if let slurm = env["SLURM_ARRAY_TASK_ID"], let kubernetes = env["JOB_COMPLETION_INDEX"] {
            throw .disagree(
                "both SLURM_ARRAY_TASK_ID=\(slurm) and JOB_COMPLETION_INDEX=\(kubernetes) are set: expected the variables of one job engine; unset the other's, or give '--shard K/N'"
            )
        }
        if let id = try integer("SLURM_ARRAY_TASK_ID") {
            guard let total = try integer("SLURM_ARRAY_TASK_COUNT"), let low = try integer("SLURM_ARRAY_TASK_MIN"),
                let high = try integer("SLURM_ARRAY_TASK_MAX")
            else {
                throw .incomplete("SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT, _MIN and _MAX")
            }
            let step = try integer("SLURM_ARRAY_TASK_STEP") ?? 1
            guard step >= 1, total >= 1, low <= high, (id - low) % step == 0, id >= low, id <= high else {
                throw .disagree("SLURM_ARRAY_TASK_ID=\(id) is not a task of the array \(low)-\(high):\(step)")
            }
            // A stepped range (0-15:4) holds its tasks evenly; a list (1,3,8) only when the
            // count says so, which Slurm gives as _COUNT: positions need an even range.
            guard (high - low) / step + 1 == total else {
                throw .disagree(
                    "SLURM_ARRAY_TASK_COUNT=\(total) but the array \(low)-\(high):\(step) has \((high - low) / step + 1) tasks: expected an evenly stepped range (a list of task ids cannot be numbered)"
                )
            }
            if let count, count != total {
                throw .disagree("--shard auto/\(count) but the Slurm array has \(total) tasks")
            }
            return Shard(uncheckedIndex: (id - low) / step, count: total)
        }
        if let k = try integer("JOB_COMPLETION_INDEX") {
            let variable = try integer("BGBENCH_SHARD_COUNT")
            guard let n = count ?? variable else {
                throw .incomplete(
                    "JOB_COMPLETION_INDEX is set but not the shard count: expected '--shard auto/N' or BGBENCH_SHARD_COUNT"
                )
            }
            if let count, let variable, variable != count {
                throw .disagree("--shard auto/\(count) but BGBENCH_SHARD_COUNT=\(variable)")
            }
            guard let shard = Shard(index: k, count: n) else {
                throw .disagree("JOB_COMPLETION_INDEX=\(k) is not below the shard count \(n)")
            }
            return shard
        }
        throw .incomplete(
            "no job engine found: expected SLURM_ARRAY_TASK_ID (a Slurm array job) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)"
        )
    }
}

/// A shard the environment does not define.
public enum ShardError: Error, Equatable, CustomStringConvertible {
    case badVariable(String, String)
    case incomplete(String)
    case disagree(String)
    public var description: String {
        switch self {
        case .badVariable(let name, let value): "invalid \(name)='\(value)' for '--shard auto': expected an integer"
        case .incomplete(let what), .disagree(let what): "'--shard auto': \(what)"
        }
    }
}

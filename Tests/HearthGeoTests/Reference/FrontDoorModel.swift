import Foundation

@testable import HearthGeo

/// The fixes of an upload that reach the pipeline's engines, by the SPEC §1
/// front door read plainly: validation (5 min ahead, 7 days old, an
/// accuracy that is a finite non-negative number), dedupe on (user,
/// device, time), then presence, which the engines follow (SPEC §1 "one
/// person, several devices"): each person's new fixes taken in time order
/// (at one millisecond a fix on the move before a `still` one, then the
/// lower device id); a fix goes on only if it takes the person's row: it is
/// newer than the row, and it is not a `still` fix from another device than
/// the holder's while the holder is fresh at the receipt (15 min; 35 min
/// after `still`, also when a re-report of the holder's fix said `still`;
/// a fix whose `still` re-report comes in its own upload is judged as `still`).
/// Kept-out fixes are counted by reason, as the pipeline counts them.
struct FrontDoorModel {
  var seen = Set<String>()
  var holders: [UserID: Fix] = [:]
  var notNewer = 0
  var overruled = 0

  /// The fixes that reach the engines, in the order the engines take them
  /// (person, then time).
  mutating func forwarded(_ fixes: [Fix], received: Int64) -> [Fix] {
    var new: [Fix] = []
    var newByKey: [String: Int] = [:]
    for fix in fixes {
      let t = fix.timeMilliseconds
      guard t - received <= 5 * 60_000, received - t <= 7 * 86_400_000,
        fix.horizontalAccuracyMeters >= 0, fix.horizontalAccuracyMeters.isFinite
      else { continue }
      let key = "\(fix.user) \(fix.device) \(t)"
      guard seen.insert(key).inserted else {
        // SPEC §1 dedupe: a re-report saying `still` adopts it. A fix stored
        // by this upload is judged as `still` from the start; when the holder
        // is that very fix it goes stale at 35 min from now on.
        guard fix.activity == .still else { continue }
        if let k = newByKey[key] {
          new[k].activity = .still
        } else if var holder = holders[fix.user], holder.device == fix.device, holder.timeMilliseconds == t {
          holder.activity = .still
          holders[fix.user] = holder
        }
        continue
      }
      newByKey[key] = new.count
      new.append(fix)
    }
    func order(_ f: Fix) -> (UInt32, Int64, Int, UInt32) {
      (f.user.rawValue, f.timeMilliseconds, f.activity == .still ? 1 : 0, f.device.rawValue)
    }
    var out: [Fix] = []
    for fix in new.sorted(by: { order($0) < order($1) }) {
      if let holder = holders[fix.user] {
        guard fix.timeMilliseconds > holder.timeMilliseconds else {
          notNewer += 1
          continue
        }
        let limit: Int64 = holder.activity == .still ? 35 * 60_000 : 15 * 60_000
        guard
          fix.device == holder.device || fix.activity != .still || received - holder.timeMilliseconds > limit
        else {
          overruled += 1
          continue
        }
      }
      holders[fix.user] = fix
      out.append(fix)
    }
    return out
  }
}

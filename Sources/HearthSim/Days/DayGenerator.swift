import HearthGeo

/// Generates a person's day of fixes with its ground truth.
///
/// The day has places (home, maybe a school, work, a lunch spot, maybe a
/// shop) and an itinerary (school run, commute, a walk at lunch, errands, an
/// evening walk to a park). The person moves once a second along monotone
/// street-grid routes: urban streets (50 km/h) with traffic lights, highway
/// stretches (100 km/h) with slowdowns, corners taken at 6 m/s, walks at
/// 1.2–1.6 m/s. The phones then sample that truth as the tracker would
/// (SPEC §6): a fix every 10 s (50 m gate) while driving, every 30 s or
/// 60 m while walking, 1 Hz while watched live, a park fix 30 s after
/// arriving and quarter-hour heartbeats while parked; with GPS noise that
/// grows indoors, network estimates, outliers, tunnels, and uploads that
/// come late or twice.
///
/// Deterministic: the same seed and options give the same bits on every
/// machine (no libm; see `SimMath`).
/// - Complexity: O(86 400) per day; a few milliseconds.
public enum DayGenerator {
  public static func generate(seed: UInt64, options: DayOptions = DayOptions()) -> LocationDay {
    var draws = Gaussian(seed: seed ^ 0xDA7_0F_DA75)
    let frame = LocalFrame(origin: options.origin)
    let (places, plan) = itinerary(&draws, frame: frame)
    var motion = MotionBuilder(frame: frame, options: options, places: places)
    motion.run(plan, &draws)
    var labels = motion.labels()
    // Tunnels belong to the road: every phone in the car loses GPS together.
    var tunnels: [Range<Int>] = []
    for drive in motion.drives where drive.count > 300 && draws.chance(options.tunnelProbabilityPerDrive) {
      let length = min(drive.count - 120, Int(draws.uniform(120, 360)))
      let start = drive.lowerBound + 60 + Int(draws.uniform(0, Double(drive.count - 120 - length)))
      tunnels.append(start..<start + length)
    }
    var uploads: [Upload] = []
    for phone in 0..<max(1, min(2, options.carriedPhones)) {
      var sampler = PhoneSampler(
        device: UInt32(phone + 1), seed: seed &+ UInt64(phone + 1) &* 0x9E37_79B9_7F4A_7C15, options: options)
      let fixes = sampler.sample(motion.truth, drives: motion.drives, tunnels: tunnels)
      labels.gaps += sampler.gaps
      labels.outliers += sampler.outliers
      uploads += sampler.upload(fixes)
    }
    if options.homeTablet {
      var tablet = PhoneSampler(device: 9, seed: seed &+ 0x7AB1E7, options: options)
      uploads += tablet.upload(tablet.heartbeats(at: places[0], frame: frame))
    }
    // Stable order of arrival: time, then device, then generation order.
    let order = uploads.indices.sorted {
      (uploads[$0].receivedMilliseconds, uploads[$0].device.rawValue, $0)
        < (uploads[$1].receivedMilliseconds, uploads[$1].device.rawValue, $1)
    }
    return LocationDay(
      options: options, seed: seed, places: places, uploads: order.map { uploads[$0] }, labels: labels,
      truth: motion.truth)
  }

  // MARK: Places and itinerary

  enum Step {
    /// Travel to a point (a place's parking spot or a free point).
    case go(east: Double, north: Double, place: Int?, mode: MotionMode)
    case stay(seconds: Int)
    case stayUntil(second: Int)
    /// Where the day begins (no travel).
    case begin(east: Double, north: Double, place: Int)
  }

  static func itinerary(_ draws: inout Gaussian, frame: LocalFrame) -> ([Place], [Step]) {
    var places: [Place] = []
    var spots: [(Double, Double)] = []
    func add(
      _ kind: PlaceKind, _ name: String, near: (Double, Double), from: Double, to: Double,
      radius: ClosedRange<Double>
    )
      -> Int
    {
      // Keep every place at least 400 m from the others so trips between them count (SPEC §7).
      var point = near
      for _ in 0..<50 {
        let distance = draws.uniform(from, to)
        let bearing = draws.uniform(0, 2 * SimMath.pi)
        point = (near.0 + distance * SimMath.sin(bearing), near.1 + distance * SimMath.cos(bearing))
        if spots.allSatisfy({ planarDistance($0, point) >= 400 }) { break }
      }
      let id = places.count
      let center = frame.coordinate(east: point.0, north: point.1)
      places.append(
        Place(
          id: id, name: name, kind: kind, center: center,
          radiusMeters: draws.uniform(radius.lowerBound, radius.upperBound)))
      spots.append(point)
      return id
    }
    let home = add(.home, "Home", near: (0, 0), from: 0, to: 300, radius: 60...120)
    let hasChildren = draws.chance(0.6)
    let school =
      hasChildren ? add(.school, "School", near: spots[home], from: 1000, to: 3000, radius: 100...200) : nil
    let work = add(.work, "Work", near: spots[home], from: 5000, to: 18000, radius: 80...200)
    let lunch = add(.shop, "Lunch", near: spots[work], from: 450, to: 800, radius: 40...80)
    let errands =
      draws.chance(0.5) ? add(.shop, "Shop", near: spots[home], from: 800, to: 4000, radius: 50...150) : nil

    // Parking spots lie inside the place, off its centre.
    func spot(_ id: Int) -> Step {
      let r = draws.uniform(0, places[id].radiusMeters / 2)
      let a = draws.uniform(0, 2 * SimMath.pi)
      return .go(
        east: spots[id].0 + r * SimMath.sin(a), north: spots[id].1 + r * SimMath.cos(a), place: id,
        mode: .driving)
    }
    func walk(to id: Int) -> Step {
      guard case .go(let e, let n, let p, _) = spot(id) else { return .stay(seconds: 0) }
      return .go(east: e, north: n, place: p, mode: .walking)
    }
    let hour = 3600.0
    guard case .go(let homeEast, let homeNorth, _, _) = spot(home) else { return (places, []) }
    var steps: [Step] = [
      .begin(east: homeEast, north: homeNorth, place: home),
      .stayUntil(second: Int(draws.uniform(7 * hour, 7.75 * hour))),
    ]
    if let school {
      steps += [spot(school), .stay(seconds: Int(draws.uniform(180, 480)))]
    }
    steps += [spot(work), .stayUntil(second: Int(draws.uniform(12 * hour, 12.5 * hour)))]
    steps += [walk(to: lunch), .stay(seconds: Int(draws.uniform(1200, 2700))), walk(to: work)]
    steps.append(.stayUntil(second: Int(draws.uniform(16.5 * hour, 17.5 * hour))))
    if let errands { steps += [spot(errands), .stay(seconds: Int(draws.uniform(600, 3600)))] }
    steps += [spot(home), .stayUntil(second: Int(draws.uniform(19 * hour, 20.5 * hour)))]
    if draws.chance(0.4) {
      // An evening walk to a park (not a named place) and back.
      let distance = draws.uniform(600, 1500)
      let bearing = draws.uniform(0, 2 * SimMath.pi)
      let park = (
        spots[home].0 + distance * SimMath.sin(bearing), spots[home].1 + distance * SimMath.cos(bearing)
      )
      steps += [
        .go(east: park.0, north: park.1, place: nil, mode: .walking),
        .stay(seconds: Int(draws.uniform(300, 900))),
      ]
      steps.append(walk(to: home))
    }
    steps.append(.stayUntil(second: 86_400))
    return (places, steps)
  }

  static func planarDistance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let de = a.0 - b.0
    let dn = a.1 - b.1
    return (de * de + dn * dn).squareRoot()
  }
}

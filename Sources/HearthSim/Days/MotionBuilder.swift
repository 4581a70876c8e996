import HearthGeo

/// Moves the person through an itinerary once a second and records the truth.
struct MotionBuilder {
  let frame: LocalFrame
  let options: DayOptions
  let places: [Place]
  var truth: TruthTrack
  /// Seconds [start, end) spent driving each leg (tunnels and live views go there).
  var drives: [Range<Int>] = []
  var suddenStops: [SuddenStopLabel] = []

  private var east = 0.0
  private var north = 0.0
  private var place = -1
  private var second = 0
  static let daySeconds = 86_400
  static let urbanLimit = 50 / 3.6
  static let highwayLimit = 100 / 3.6

  init(frame: LocalFrame, options: DayOptions, places: [Place]) {
    self.frame = frame
    self.options = options
    self.places = places
    truth = TruthTrack(frame: frame)
  }

  var milliseconds: (Int) -> Int64 {
    let start = options.startEpochMilliseconds
    return { start + Int64($0) * 1000 }
  }

  mutating func run(_ steps: [DayGenerator.Step], _ draws: inout Gaussian) {
    for step in steps {
      switch step {
      case .begin(let e, let n, let p):
        (east, north, place) = (e, n, p)
      case .stay(let seconds):
        park(until: second + seconds)
      case .stayUntil(let target):
        park(until: target)
      case .go(let e, let n, let p, let mode):
        travel(to: (e, n), mode: mode, &draws)
        place = p ?? -1
      }
    }
    park(until: Self.daySeconds)
  }

  private mutating func emit(_ speed: Double, _ heading: Double, _ limit: Double, _ mode: MotionMode) {
    guard second < Self.daySeconds else { return }
    truth.append(second, east, north, speed, heading, limit, mode, mode == .parked ? place : -1)
    second += 1
  }

  private mutating func park(until target: Int) {
    while second < min(target, Self.daySeconds) { emit(0, 0, 0, .parked) }
  }

  // MARK: Travel

  struct Piece {
    var startS: Double
    var length: Double
    var fromEast: Double
    var fromNorth: Double
    var dirEast: Double
    var dirNorth: Double
    var headingDegrees: Double
    var limit: Double
    var cruise: Double
  }

  struct Control {
    var s: Double
    /// Speed to be at when passing (0: stop there).
    var speed: Double
    /// Deceleration used to approach it, m/s².
    var deceleration: Double
    /// Seconds standing still once stopped.
    var waitSeconds: Int
    var isSuddenStop = false
  }

  /// A monotone street-grid route: the east and north legs split into one to
  /// three pieces each, interleaved, starting with either.
  func route(to target: (Double, Double), _ draws: inout Gaussian) -> [(Double, Double)] {
    let de = target.0 - east
    let dn = target.1 - north
    func split(_ total: Double) -> [Double] {
      let k = draws.integer(1...3)
      var cuts = (0..<(k - 1)).map { _ in draws.uniform(0.15, 0.85) }
      cuts.sort()
      var parts: [Double] = []
      var previous = 0.0
      for c in cuts + [1] {
        parts.append(total * (c - previous))
        previous = c
      }
      return parts
    }
    let eastParts = split(de)
    let northParts = split(dn)
    var points = [(east, north)]
    var (e, n) = (east, north)
    var (i, j) = (0, 0)
    var eastTurn = draws.chance(0.5)
    while i < eastParts.count || j < northParts.count {
      if (eastTurn && i < eastParts.count) || j >= northParts.count {
        e += eastParts[i]
        i += 1
      } else {
        n += northParts[j]
        j += 1
      }
      eastTurn.toggle()
      if DayGenerator.planarDistance(points[points.count - 1], (e, n)) > 1 { points.append((e, n)) }
    }
    // End exactly on the target (the sums above may differ in the last bits).
    if points.count > 1 { points.removeLast() }
    if DayGenerator.planarDistance(points[points.count - 1], target) > 0 { points.append(target) }
    return points
  }

  private mutating func travel(to target: (Double, Double), mode: MotionMode, _ draws: inout Gaussian) {
    let points = route(to: target, &draws)
    guard points.count >= 2 else { return }
    let driving = mode == .driving
    let walkSpeed = draws.uniform(1.2, 1.6)
    var pieces: [Piece] = []
    var s = 0.0
    for k in 1..<points.count {
      let de = points[k].0 - points[k - 1].0
      let dn = points[k].1 - points[k - 1].1
      let length = (de * de + dn * dn).squareRoot()
      var heading = SimMath.atan2(de, dn) * 180 / SimMath.pi
      if heading < 0 { heading += 360 }
      let limit = driving ? (length >= 2500 ? Self.highwayLimit : Self.urbanLimit) : 0
      let cruise =
        driving
        ? limit
          * (draws.chance(options.speedingProbabilityPerStreet)
            ? draws.uniform(1.08, 1.25) : draws.uniform(0.85, 0.98))
        : walkSpeed
      pieces.append(
        Piece(
          startS: s, length: length, fromEast: points[k - 1].0, fromNorth: points[k - 1].1,
          dirEast: de / length,
          dirNorth: dn / length, headingDegrees: heading, limit: limit, cruise: cruise))
      s += length
    }
    let total = s

    // Where the car must slow or stop.
    var controls: [Control] = []
    if driving {
      for (k, piece) in pieces.enumerated() {
        if piece.limit == Self.urbanLimit {
          var at = piece.startS + draws.uniform(150, 500)
          while at < piece.startS + piece.length - 100 {
            if draws.chance(0.35) {
              controls.append(
                Control(s: at, speed: 0, deceleration: 2, waitSeconds: Int(draws.uniform(5, 45))))
            }
            at += draws.uniform(150, 500)
          }
        } else if draws.chance(0.2) {
          let at = piece.startS + draws.uniform(0.2, 0.8) * piece.length
          controls.append(Control(s: at, speed: draws.uniform(2, 6), deceleration: 1.5, waitSeconds: 0))
        }
        if k < pieces.count - 1 {
          controls.append(Control(s: piece.startS + piece.length, speed: 6, deceleration: 2, waitSeconds: 0))
        }
      }
      // A sudden stop on a long fast piece in the middle of a long drive.
      if total >= 2000 && draws.chance(options.suddenStopProbabilityPerDrive) {
        let candidates = pieces.filter {
          $0.length >= 800 && $0.startS + 300 < 0.7 * total && $0.startS + $0.length > 0.3 * total
        }
        if !candidates.isEmpty {
          let piece = candidates[draws.integer(0...(candidates.count - 1))]
          let lower = max(piece.startS + 300, 0.3 * total)
          let upper = min(piece.startS + piece.length - 50, 0.7 * total)
          if upper > lower {
            let at = draws.uniform(lower, upper)
            controls.removeAll { $0.s > at - 400 && $0.s < at + 50 }
            controls.append(
              Control(
                s: at, speed: 0, deceleration: draws.uniform(6, 8), waitSeconds: Int(draws.uniform(360, 900)),
                isSuddenStop: true))
          }
        }
      }
    }
    controls.append(Control(s: total, speed: 0, deceleration: driving ? 2 : 1, waitSeconds: 0))
    controls.sort { $0.s < $1.s }

    let acceleration = driving ? draws.uniform(1.5, 2.5) : 1.0
    let driveStart = second
    var position = 0.0
    var speed = 0.0
    var next = 0
    var pieceIndex = 0
    var brakingFrom: (second: Int, speed: Double)?
    while next < controls.count && second < Self.daySeconds {
      while pieceIndex < pieces.count - 1 && position >= pieces[pieceIndex].startS + pieces[pieceIndex].length
      {
        pieceIndex += 1
      }
      let piece = pieces[pieceIndex]
      let control = controls[next]
      let remaining = control.s - position
      let allowed = (control.speed * control.speed + 2 * control.deceleration * max(0, remaining))
        .squareRoot()
      var newSpeed = min(piece.cruise, speed + acceleration, allowed)
      if control.speed == 0 { newSpeed = max(newSpeed, min(1.5, remaining)) }
      if control.isSuddenStop && brakingFrom == nil && allowed < speed + acceleration
        && allowed < piece.cruise
      {
        brakingFrom = (second, speed)
      }
      var step = 0.5 * (speed + newSpeed)
      if step >= remaining {
        step = remaining
        position = control.s
        next += 1
        speed = control.speed == 0 ? 0 : newSpeed
      } else {
        position += step
        speed = newSpeed
      }
      let current =
        position >= piece.startS + piece.length && pieceIndex + 1 < pieces.count
        ? pieces[pieceIndex + 1] : piece
      let offset = min(max(position - current.startS, 0), current.length)
      east = current.fromEast + offset * current.dirEast
      north = current.fromNorth + offset * current.dirNorth
      emit(speed, current.headingDegrees, current.limit, mode)
      if speed == 0 && position == control.s && control.speed == 0 {
        if control.isSuddenStop, let from = brakingFrom {
          suddenStops.append(
            SuddenStopLabel(
              stopMilliseconds: milliseconds(second - 1),
              coordinate: frame.coordinate(east: east, north: north),
              speedBeforeMetersPerSecond: from.speed,
              decelerationMetersPerSecondSquared: from.speed / Double(max(1, second - 1 - from.second)),
              stoppedSeconds: Double(control.waitSeconds)))
        }
        for _ in 0..<control.waitSeconds { emit(0, current.headingDegrees, current.limit, mode) }
      }
    }
    if driving { drives.append(driveStart..<second) }
  }

  // MARK: Labels from the truth

  /// Trips, stops, visits and over-limit stretches read off the truth; a
  /// stop is 5 min or more without moving (SPEC §7's split).
  func labels() -> DayLabels {
    var labels = DayLabels()
    labels.suddenStops = suddenStops
    let n = truth.count
    let ms = milliseconds
    // Stationary runs.
    var runs: [Range<Int>] = []
    var i = 0
    while i < n {
      guard truth.speedMetersPerSecond[i] == 0 else {
        i += 1
        continue
      }
      var j = i
      while j < n && truth.speedMetersPerSecond[j] == 0 { j += 1 }
      runs.append(i..<j)
      i = j
    }
    let stops = runs.filter { $0.count >= 300 }
    func placeOf(_ run: Range<Int>) -> Int? {
      let p = Int(truth.placeID[run.lowerBound])
      return p >= 0 ? p : nil
    }
    for stop in stops {
      labels.stops.append(
        StopLabel(
          startMilliseconds: ms(stop.lowerBound), endMilliseconds: ms(stop.upperBound - 1),
          coordinate: truth.coordinate(at: stop.lowerBound), place: placeOf(stop)))
    }
    for (a, b) in zip(stops, stops.dropFirst()) {
      let range = a.upperBound - 1..<b.lowerBound + 1
      var path = 0.0
      var top = 0.0
      var driving = false
      for k in range.dropFirst() {
        path += DayGenerator.planarDistance(
          (truth.eastMeters[k - 1], truth.northMeters[k - 1]), (truth.eastMeters[k], truth.northMeters[k]))
        top = max(top, truth.speedMetersPerSecond[k])
        driving = driving || truth.mode[k] == .driving
      }
      let first = range.lowerBound
      let last = range.upperBound - 1
      labels.trips.append(
        TripLabel(
          startMilliseconds: ms(first), endMilliseconds: ms(last), fromPlace: placeOf(a), toPlace: placeOf(b),
          mode: driving ? .driving : .walking, pathMeters: path,
          displacementMeters: DayGenerator.planarDistance(
            (truth.eastMeters[first], truth.northMeters[first]),
            (truth.eastMeters[last], truth.northMeters[last])),
          maxSpeedMetersPerSecond: top))
    }
    // Visits: parked runs inside a named place, however short.
    i = 0
    while i < n {
      let p = truth.placeID[i]
      guard p >= 0 else {
        i += 1
        continue
      }
      var j = i
      while j < n && truth.placeID[j] == p { j += 1 }
      labels.visits.append(VisitLabel(place: Int(p), arriveMilliseconds: ms(i), leaveMilliseconds: ms(j - 1)))
      i = j
    }
    // Over the limit.
    i = 0
    while i < n {
      let limit = truth.limitMetersPerSecond[i]
      guard limit > 0 && truth.speedMetersPerSecond[i] > limit else {
        i += 1
        continue
      }
      var j = i
      var top = 0.0
      while j < n && truth.limitMetersPerSecond[j] == limit && truth.speedMetersPerSecond[j] > limit {
        top = max(top, truth.speedMetersPerSecond[j])
        j += 1
      }
      labels.overLimit.append(
        OverLimitLabel(
          startMilliseconds: ms(i), endMilliseconds: ms(j - 1), limitMetersPerSecond: limit,
          maxSpeedMetersPerSecond: top))
      i = j
    }
    return labels
  }
}

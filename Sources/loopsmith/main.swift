import Loopsmith
